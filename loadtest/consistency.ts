/**
 * After the traffic: what the clients were told against what the database holds.
 *
 * 1. Leads whose first request got no definite answer (no answer, 5xx, the balancer's 502/504) are
 *    sent again with the same Idempotency-Key and body, as a well-behaved client would: the API
 *    must answer with the report it already created, or create it now, never a second one.
 * 2. Every lead answered 201 has exactly one report, with the token the client was given; a lead
 *    refused with a 4xx has none; no report exists that no request asked for.
 * 3. Each entity's `remote_quota_used` equals the number of lead reports created in it.
 * 4. Once the dispatchers have drained the outbox: each lead has one row per channel it asked for,
 *    every row is `sent` with exactly one successful attempt, and appears exactly once in the
 *    outbox file (the local channel), i.e. was delivered once. Delivery is at least once by design:
 *    a dispatcher that dies (or loses the database) between sending and recording leaves the row
 *    to be sent again when its lease ends. A second delivery whose first one happened just before
 *    such a fault is reported as that (a note); any other duplicate is a problem.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { sleep } from './net';
import type { Channel, LeadAttempt, OrganizationFixture } from './traffic';

export interface ConsistencyInput {
  databaseUrl: string;
  runId: string;
  leads: LeadAttempt[];
  organizations: OrganizationFixture[];
  entityIds: string[];
  loadBalancerUrl: string;
  outboxFile: string;
  requestTimeoutMs: number;
  drainTimeoutMs: number;
  /** wall-clock time the traffic started (ms since the epoch): file timestamps are shown relative to it */
  trafficStartedAtMs: number;
  /** the faults of the run (kill -9, PostgreSQL restart, SIGTERM), in seconds since the traffic started */
  faults: { at: number; event: string }[];
  log: (line: string) => void;
}

/** A first delivery this long before a fault, or this long after it began, may have gone unrecorded because of it. */
const FAULT_WINDOW_BEFORE_S = 5;
const FAULT_WINDOW_AFTER_S = 3;

export interface DuplicateDelivery {
  outboxId: string;
  channel: string;
  /** seconds since the traffic started, one per delivery */
  deliveredAt: number[];
  /** the fault that explains it, if any */
  explainedBy?: string;
}

export interface ConsistencyReport {
  leads: {
    requested: number;
    /** first answers */
    created201: number;
    refused4xx: Record<string, number>;
    /** no answer, 5xx or the balancer's 502/504 */
    uncertain: number;
    /** of the uncertain ones: committed although the client was not told (before the retry) */
    uncertainButCommitted: number;
  };
  retry: {
    leads: number;
    /** the retry returned the report created by the first request */
    replayedExisting: number;
    createdOnRetry: number;
    /** still no definite answer after the retries */
    unresolved: number;
    answers: Record<string, number>;
  };
  reports: {
    /** distinct leads that must have a report: 201 on the first request or on the retry */
    acknowledged: number;
    found: number;
    leadsWithSeveralReports: number;
    acknowledgedWithoutReport: number;
    tokenDiffersFromAnswer: number;
    reportsForRefusedLeads: number;
  };
  quota: { used: number; leadReports: number; entitiesWhereUsedDiffers: number };
  outbox: {
    expectedRows: number;
    rows: number;
    byStatus: Record<string, number>;
    missingRows: number;
    unexpectedRows: number;
    rowsWithoutExactlyOneSuccessfulAttempt: number;
    deliveredOnce: number;
    deliveredMoreThanOnce: number;
    /** of those, the ones whose first delivery went unrecorded because of a fault */
    duplicatesExplainedByAFault: number;
    duplicates: DuplicateDelivery[];
    neverDelivered: number;
    drainSeconds: number;
  };
  problems: string[];
  /** what happened as the design allows, worth knowing */
  notes: string[];
}

const seqOf = (folderName: string) => Number(folderName.slice(folderName.lastIndexOf('-') + 1));
const isUncertain = (lead: LeadAttempt) => lead.status === undefined || lead.status >= 500;

interface LeadReportRow {
  folder_name: string;
  token: string;
  entity_id: string;
}

async function leadReports(client: pg.Client, runId: string): Promise<Map<number, LeadReportRow[]>> {
  const { rows } = await client.query<LeadReportRow>(
    `SELECT folder_name, token::text AS token, entity_id::text AS entity_id FROM reports WHERE folder_name LIKE $1`,
    [`LT-${runId}-%`],
  );
  const bySeq = new Map<number, LeadReportRow[]>();
  for (const row of rows) {
    const seq = seqOf(row.folder_name);
    bySeq.set(seq, [...(bySeq.get(seq) ?? []), row]);
  }
  return bySeq;
}

/** Sends the lead again (same key, same body) until a definite answer, honouring Retry-After. */
async function retryLead(input: ConsistencyInput, lead: LeadAttempt): Promise<{ status?: number; token?: string }> {
  const org = input.organizations[lead.organization]!;
  for (let attempt = 1; attempt <= 8; attempt += 1) {
    let wait = Math.min(8_000, 250 * 2 ** attempt);
    try {
      const response = await fetch(`${input.loadBalancerUrl}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'x-api-key': org.apiKey, 'content-type': 'application/json', 'idempotency-key': lead.idempotencyKey },
        body: lead.body,
        signal: AbortSignal.timeout(input.requestTimeoutMs),
      });
      const text = await response.text();
      if (response.status < 500 && response.status !== 429) {
        return { status: response.status, token: response.status === 201 ? (JSON.parse(text) as { token: string }).token : undefined };
      }
      const retryAfter = Number(response.headers.get('retry-after'));
      if (Number.isFinite(retryAfter) && retryAfter > 0) wait = Math.min(30_000, retryAfter * 1000);
    } catch {
      // no answer: try again
    }
    await sleep(wait);
  }
  return {};
}

async function inParallel<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

interface OutboxRow {
  id: string;
  token: string;
  channel: Channel;
  status: string;
  successes: number;
}

export async function checkConsistency(input: ConsistencyInput): Promise<ConsistencyReport> {
  const { leads, log } = input;
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: input.databaseUrl });
  await client.connect();
  try {
    // --- 1. first answers, and what the database holds for the uncertain ones
    const before = await leadReports(client, input.runId);
    const refused4xx: Record<string, number> = {};
    for (const lead of leads) {
      if (lead.status !== undefined && lead.status >= 400 && lead.status < 500)
        refused4xx[lead.status] = (refused4xx[lead.status] ?? 0) + 1;
    }
    const uncertain = leads.filter(isUncertain);

    log(`  retrying ${uncertain.length} leads without a definite answer (same Idempotency-Key and body)`);
    const retryAnswers: Record<string, number> = {};
    const retried = new Map<number, { status?: number; token?: string }>();
    await inParallel(uncertain, 4, async (lead) => {
      const result = await retryLead(input, lead);
      retried.set(lead.seq, result);
      const label = result.status === undefined ? 'no definite answer' : String(result.status);
      retryAnswers[label] = (retryAnswers[label] ?? 0) + 1;
    });

    // --- 2. reports against answers
    const after = await leadReports(client, input.runId);
    const acknowledged = new Map<number, string>();
    for (const lead of leads) {
      const token = lead.status === 201 ? lead.token : retried.get(lead.seq)?.token;
      if (token) acknowledged.set(lead.seq, token);
    }
    let withoutReport = 0;
    let tokenDiffers = 0;
    for (const [seq, token] of acknowledged) {
      const rows = after.get(seq) ?? [];
      if (rows.length === 0) withoutReport += 1;
      else if (!rows.some((r) => r.token === token)) tokenDiffers += 1;
    }
    const several = [...after.values()].filter((rows) => rows.length > 1).length;
    const knownSeqs = new Set(leads.map((l) => l.seq));
    const refusedSeqs = new Set(leads.filter((l) => l.status !== undefined && l.status >= 400 && l.status < 500).map((l) => l.seq));
    const reportsForRefused = [...after.keys()].filter((seq) => refusedSeqs.has(seq) || !knownSeqs.has(seq)).length;
    let replayedExisting = 0;
    let createdOnRetry = 0;
    for (const [seq, result] of retried) {
      if (result.status !== 201) continue;
      if (before.has(seq)) replayedExisting += 1;
      else createdOnRetry += 1;
    }
    const unresolved = [...retried.values()].filter((r) => r.status === undefined).length;
    if (several > 0) problems.push(`${several} leads have more than one report (idempotency broken)`);
    if (withoutReport > 0) problems.push(`${withoutReport} leads answered 201 have no report (lost write)`);
    if (tokenDiffers > 0) problems.push(`${tokenDiffers} leads answered 201 with a token that is not their report's`);
    if (reportsForRefused > 0) problems.push(`${reportsForRefused} reports exist for leads refused with a 4xx or never requested`);
    if (unresolved > 0) problems.push(`${unresolved} leads still had no definite answer after 8 retries`);

    // --- 3. quota
    const { rows: entities } = await client.query<{ id: string; used: number }>(
      `SELECT id::text AS id, remote_quota_used AS used FROM entities WHERE id = ANY($1::uuid[])`,
      [input.entityIds],
    );
    const perEntity = new Map<string, number>();
    for (const rows of after.values()) for (const row of rows) perEntity.set(row.entity_id, (perEntity.get(row.entity_id) ?? 0) + 1);
    const entitiesWhereUsedDiffers = entities.filter((e) => e.used !== (perEntity.get(e.id) ?? 0)).length;
    const used = entities.reduce((sum, e) => sum + e.used, 0);
    const leadReportCount = [...after.values()].reduce((sum, rows) => sum + rows.length, 0);
    if (entitiesWhereUsedDiffers > 0) problems.push(`quota used differs from the lead reports in ${entitiesWhereUsedDiffers} entities`);
    if (used !== acknowledged.size)
      problems.push(`quota used (${used}) differs from the leads acknowledged with 201 (${acknowledged.size})`);

    // --- 4. outbox, once drained
    const started = Date.now();
    log(`  waiting for the dispatchers to drain the outbox (up to ${input.drainTimeoutMs / 1000} s)`);
    for (;;) {
      const { rows } = await client.query<{ pending: number }>(
        `SELECT count(*)::int AS pending FROM notification_outbox o JOIN reports r ON r.token = o.report_token
         WHERE r.folder_name LIKE $1 AND o.status = 'pending'`,
        [`LT-${input.runId}-%`],
      );
      if (rows[0]!.pending === 0 || Date.now() - started > input.drainTimeoutMs) break;
      await sleep(1_000);
    }
    const drainSeconds = (Date.now() - started) / 1000;
    const { rows: outbox } = await client.query<OutboxRow>(
      `SELECT o.id::text AS id, o.report_token::text AS token, o.channel::text AS channel, o.status::text AS status,
         (SELECT count(*) FROM notification_attempts a WHERE a.outbox_id = o.id AND a.succeeded)::int AS successes
       FROM notification_outbox o JOIN reports r ON r.token = o.report_token WHERE r.folder_name LIKE $1`,
      [`LT-${input.runId}-%`],
    );
    const leadBySeq = new Map(leads.map((l) => [l.seq, l]));
    const expected = new Set<string>();
    for (const [seq, rows] of after)
      for (const row of rows) for (const channel of leadBySeq.get(seq)?.channels ?? []) expected.add(`${row.token} ${channel}`);
    const actual = new Set(outbox.map((r) => `${r.token} ${r.channel}`));
    const missingRows = [...expected].filter((k) => !actual.has(k)).length;
    const unexpectedRows = outbox.length - outbox.filter((r) => expected.has(`${r.token} ${r.channel}`)).length;
    const byStatus: Record<string, number> = {};
    for (const row of outbox) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    const notOneSuccess = outbox.filter((r) => r.successes !== 1).length;

    const deliveries = new Map<string, number[]>();
    let fileText = '';
    try {
      fileText = readFileSync(input.outboxFile, 'utf8');
    } catch {
      // no file: nothing was delivered
    }
    for (const line of fileText.split('\n')) {
      if (line.trim() === '') continue;
      const { id, at } = JSON.parse(line) as { id: string; at: string };
      const seconds = Math.round((Date.parse(at) - input.trafficStartedAtMs) / 10) / 100;
      deliveries.set(id, [...(deliveries.get(id) ?? []), seconds]);
    }
    const deliveredOnce = outbox.filter((r) => deliveries.get(r.id)?.length === 1).length;
    const duplicates: DuplicateDelivery[] = outbox
      .filter((r) => (deliveries.get(r.id)?.length ?? 0) > 1)
      .map((r) => {
        const deliveredAt = deliveries.get(r.id)!.sort((a, b) => a - b);
        const fault = input.faults.find(
          (f) => deliveredAt[0]! >= f.at - FAULT_WINDOW_BEFORE_S && deliveredAt[0]! <= f.at + FAULT_WINDOW_AFTER_S,
        );
        return { outboxId: r.id, channel: r.channel, deliveredAt, explainedBy: fault?.event };
      });
    const explained = duplicates.filter((d) => d.explainedBy);
    const neverDelivered = outbox.filter((r) => !deliveries.has(r.id)).length;
    const notes: string[] = [];
    for (const event of new Set(explained.map((d) => d.explainedBy!))) {
      const these = explained.filter((d) => d.explainedBy === event);
      const first = these.map((d) => d.deliveredAt[0]!);
      const second = these.map((d) => d.deliveredAt[1]!);
      notes.push(
        `${these.length} notifications delivered more than once (at least once, as designed): first at ${Math.min(...first).toFixed(1)}–${Math.max(...first).toFixed(1)} s, ` +
          `unrecorded because of "${event}", again at ${Math.min(...second).toFixed(1)}–${Math.max(...second).toFixed(1)} s when the lease ended`,
      );
    }
    if (missingRows > 0) problems.push(`${missingRows} notifications asked for have no outbox row`);
    if (unexpectedRows > 0) problems.push(`${unexpectedRows} outbox rows nobody asked for`);
    if ((byStatus.pending ?? 0) > 0) problems.push(`${byStatus.pending} outbox rows still pending after ${drainSeconds.toFixed(0)} s`);
    if ((byStatus.failed ?? 0) > 0) problems.push(`${byStatus.failed} outbox rows failed`);
    if (notOneSuccess > 0) problems.push(`${notOneSuccess} outbox rows without exactly one successful attempt recorded`);
    const unexplained = duplicates.length - explained.length;
    if (unexplained > 0) problems.push(`${unexplained} notifications delivered more than once with no fault to explain it (outbox file)`);
    if (neverDelivered > 0) problems.push(`${neverDelivered} notifications never delivered (outbox file)`);

    return {
      leads: {
        requested: leads.length,
        created201: leads.filter((l) => l.status === 201).length,
        refused4xx,
        uncertain: uncertain.length,
        uncertainButCommitted: uncertain.filter((l) => before.has(l.seq)).length,
      },
      retry: { leads: uncertain.length, replayedExisting, createdOnRetry, unresolved, answers: retryAnswers },
      reports: {
        acknowledged: acknowledged.size,
        found: leadReportCount,
        leadsWithSeveralReports: several,
        acknowledgedWithoutReport: withoutReport,
        tokenDiffersFromAnswer: tokenDiffers,
        reportsForRefusedLeads: reportsForRefused,
      },
      quota: { used, leadReports: leadReportCount, entitiesWhereUsedDiffers },
      outbox: {
        expectedRows: expected.size,
        rows: outbox.length,
        byStatus,
        missingRows,
        unexpectedRows,
        rowsWithoutExactlyOneSuccessfulAttempt: notOneSuccess,
        deliveredOnce,
        deliveredMoreThanOnce: duplicates.length,
        duplicatesExplainedByAFault: explained.length,
        duplicates,
        neverDelivered,
        drainSeconds,
      },
      problems,
      notes,
    };
  } finally {
    await client.end();
  }
}
