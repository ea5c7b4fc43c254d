/** Figures from the traffic record, and the tables printed at the end of the run. */
import type { ConsistencyReport } from './consistency';
import type { RequestKind, Traffic } from './traffic';

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface TrafficSummary {
  requestsSent: number;
  answered: number;
  /** no HTTP answer, by request kind: lost during the run, or in flight when the traffic stopped */
  unanswered: { abandoned: Record<string, number>; cutAtEnd: Record<string, number> };
  /**
   * requests lost during the run that autocannon reported neither as a timeout nor as a connection
   * error: the connection was closed without an answer (autocannon reconnects silently)
   */
  closedWithoutAnswer: number;
  statusClasses: Record<'2xx' | '3xx' | '4xx' | '5xx', number>;
  errors: {
    clientTimeouts: number;
    clientConnectionErrors: Record<string, number>;
    app503WithRetryAfter: number;
    app503WithoutRetryAfter: number;
    app500: number;
    otherApp5xx: Record<string, number>;
    fromLoadBalancer: Record<string, number>;
    rateLimited429: number;
    other4xx: Record<string, number>;
    graphqlErrorsIn200: Record<string, number>;
  };
  latency: { all: LatencySummary; byKind: Record<string, LatencySummary>; byOutcome: Record<string, LatencySummary> };
  outcomesByKind: Record<string, Record<string, number>>;
  /** consecutive seconds in which some request failed: a failed answer, a client error, or sent and never answered */
  disruptions: { from: number; to: number; failed: number; clientErrors: number; lost: number }[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function latencyOf(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  };
}

const add = (record: Record<string, number>, key: string, n: number) => {
  record[key] = (record[key] ?? 0) + n;
};

export function summarizeTraffic(traffic: Traffic, endedAt: number, timeoutSeconds: number): TrafficSummary {
  const statusClasses = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
  const errors: TrafficSummary['errors'] = {
    clientTimeouts: traffic.clientErrors.get('timeout') ?? 0,
    clientConnectionErrors: Object.fromEntries([...traffic.clientErrors].filter(([k]) => k !== 'timeout')),
    app503WithRetryAfter: 0,
    app503WithoutRetryAfter: 0,
    app500: 0,
    otherApp5xx: {},
    fromLoadBalancer: {},
    rateLimited429: 0,
    other4xx: {},
    graphqlErrorsIn200: {},
  };
  const outcomesByKind: Record<string, Record<string, number>> = {};
  let answered = 0;
  for (const [kind, outcomes] of traffic.outcomes) {
    outcomesByKind[kind] = Object.fromEntries([...outcomes].sort(([a], [b]) => a.localeCompare(b)));
    for (const [outcome, n] of outcomes) {
      answered += n;
      const status = Number.parseInt(outcome, 10);
      const statusClass = `${Math.floor(status / 100)}xx` as keyof typeof statusClasses;
      if (statusClass in statusClasses) statusClasses[statusClass] += n;
      if (outcome.includes('load balancer')) add(errors.fromLoadBalancer, outcome.replace(' from load balancer', ''), n);
      else if (outcome === '503 with Retry-After') errors.app503WithRetryAfter += n;
      else if (outcome === '503 without Retry-After') errors.app503WithoutRetryAfter += n;
      else if (status === 500) errors.app500 += n;
      else if (status > 500) add(errors.otherApp5xx, outcome, n);
      else if (status === 429) errors.rateLimited429 += n;
      else if (status >= 400) add(errors.other4xx, `${outcome} (${kind})`, n);
      else if (outcome.includes('GraphQL errors')) add(errors.graphqlErrorsIn200, outcome, n);
    }
  }
  const all = [...traffic.latencies.values()].flat();
  const { abandonedAt, ...unanswered } = traffic.unanswered(endedAt, timeoutSeconds);
  const lostPerSecond = new Map<number, number>();
  for (const at of abandonedAt) lostPerSecond.set(Math.floor(at), (lostPerSecond.get(Math.floor(at)) ?? 0) + 1);
  const disruptions: TrafficSummary['disruptions'] = [];
  traffic.perSecond.forEach((s, second) => {
    const lost = lostPerSecond.get(second) ?? 0;
    if (s.failed + s.clientErrors + lost === 0) return;
    const last = disruptions.at(-1);
    if (last && last.to === second - 1) {
      last.to = second;
      last.failed += s.failed;
      last.clientErrors += s.clientErrors;
      last.lost += lost;
    } else disruptions.push({ from: second, to: second, failed: s.failed, clientErrors: s.clientErrors, lost });
  });
  const lost = Object.values(unanswered.abandoned).reduce((a, b) => a + b, 0);
  const reported = errors.clientTimeouts + Object.values(errors.clientConnectionErrors).reduce((a, b) => a + b, 0);
  return {
    requestsSent: traffic.requestsSent,
    answered,
    unanswered,
    closedWithoutAnswer: Math.max(0, lost - reported),
    statusClasses,
    errors,
    latency: {
      all: latencyOf(all),
      byKind: Object.fromEntries([...traffic.latencies].map(([k, v]) => [k, latencyOf(v)])),
      byOutcome: Object.fromEntries([...traffic.latenciesByOutcome].filter(([o]) => !/^2\d\d$/.test(o)).map(([k, v]) => [k, latencyOf(v)])),
    },
    outcomesByKind,
    disruptions,
  };
}

const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');

function markdownTable(head: string[], rows: (string | number)[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

const list = (record: Record<string, number>) =>
  Object.keys(record).length === 0
    ? '0'
    : Object.entries(record)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ');

export function formatTrafficTables(s: TrafficSummary, seconds: number): string {
  const kinds = Object.keys(s.outcomesByKind) as RequestKind[];
  const perKind = markdownTable(
    ['request', 'answers', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'outcomes'],
    kinds.map((kind) => {
      const l = s.latency.byKind[kind]!;
      return [kind, l.count, ms(l.p50), ms(l.p95), ms(l.p99), ms(l.max), list(s.outcomesByKind[kind]!)];
    }),
  );
  const l = s.latency.all;
  const e = s.errors;
  const totals = markdownTable(
    ['figure', 'value'],
    [
      ['requests sent', `${s.requestsSent} (${(s.requestsSent / seconds).toFixed(0)}/s)`],
      ['answered', s.answered],
      ['no answer, lost during the run', list(s.unanswered.abandoned)],
      ['no answer, in flight when the traffic stopped', list(s.unanswered.cutAtEnd)],
      [
        '2xx / 3xx / 4xx / 5xx',
        `${s.statusClasses['2xx']} / ${s.statusClasses['3xx']} / ${s.statusClasses['4xx']} / ${s.statusClasses['5xx']}`,
      ],
      ['latency p50 / p95 / p99 / max (ms)', `${ms(l.p50)} / ${ms(l.p95)} / ${ms(l.p99)} / ${ms(l.max)}`],
      ['client timeouts', e.clientTimeouts],
      ['client connection errors', list(e.clientConnectionErrors)],
      ['connections closed without an answer', s.closedWithoutAnswer],
      ['503 from the app, with Retry-After', e.app503WithRetryAfter],
      ['503 from the app, without Retry-After', e.app503WithoutRetryAfter],
      ['500 from the app', e.app500],
      ['other 5xx from the app', list(e.otherApp5xx)],
      ['answers of the load balancer', list(e.fromLoadBalancer)],
      ['429 rate limited', e.rateLimited429],
      ['other 4xx', list(e.other4xx)],
      ['GraphQL errors in 200 answers', list(e.graphqlErrorsIn200)],
    ],
  );
  const failures = markdownTable(
    ['failed answer', 'count', 'p50 ms', 'p99 ms', 'max ms'],
    Object.entries(s.latency.byOutcome)
      .filter(([o]) => Number.parseInt(o, 10) >= 500 || o.includes('GraphQL errors'))
      .map(([o, v]) => [o, v.count, ms(v.p50), ms(v.p99), ms(v.max)]),
  );
  const disruptions =
    s.disruptions.length === 0
      ? 'no second with a failed request'
      : s.disruptions
          .map(
            (d) =>
              `  ${d.from}–${d.to + 1} s: ${d.failed} failed answers, ${d.clientErrors} client errors, ${d.lost} sent then never answered`,
          )
          .join('\n');
  return `${totals}\n\n${perKind}\n\nFailed answers, how fast they came:\n${failures}\n\nSeconds with failures:\n${disruptions}`;
}

export function formatConsistency(c: ConsistencyReport): string {
  const o = c.outbox;
  return markdownTable(
    ['check', 'result'],
    [
      ['leads requested', c.leads.requested],
      ['first answer 201', c.leads.created201],
      ['first answer 4xx', list(c.leads.refused4xx)],
      ['no definite first answer (no answer / 5xx)', `${c.leads.uncertain}, of which already committed: ${c.leads.uncertainButCommitted}`],
      [
        'retried with the same Idempotency-Key',
        `${c.retry.leads}: ${list(c.retry.answers)}; replayed the existing report ${c.retry.replayedExisting}, created now ${c.retry.createdOnRetry}`,
      ],
      ['leads acknowledged (201) / lead reports in the database', `${c.reports.acknowledged} / ${c.reports.found}`],
      ['leads with more than one report', c.reports.leadsWithSeveralReports],
      [
        'acknowledged without a report / with another token',
        `${c.reports.acknowledgedWithoutReport} / ${c.reports.tokenDiffersFromAnswer}`,
      ],
      ['reports for refused or unknown leads', c.reports.reportsForRefusedLeads],
      ['quota used / lead reports (entities differing)', `${c.quota.used} / ${c.quota.leadReports} (${c.quota.entitiesWhereUsedDiffers})`],
      ['outbox rows expected / found (missing, unexpected)', `${o.expectedRows} / ${o.rows} (${o.missingRows}, ${o.unexpectedRows})`],
      ['outbox rows by status', list(o.byStatus)],
      ['rows without exactly one successful attempt', o.rowsWithoutExactlyOneSuccessfulAttempt],
      [
        'delivered once / more than once (after a fault) / never (outbox file)',
        `${o.deliveredOnce} / ${o.deliveredMoreThanOnce} (${o.duplicatesExplainedByAFault}) / ${o.neverDelivered}`,
      ],
      ['outbox drained after the run in', `${o.drainSeconds.toFixed(1)} s`],
      ['verdict', c.problems.length === 0 ? 'consistent' : c.problems.join('; ')],
      ...c.notes.map((note) => ['note', note]),
    ],
  );
}
