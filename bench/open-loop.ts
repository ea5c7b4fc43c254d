/**
 * `npm run bench -- --open-loop 50,100,200`: latency as users feel it. Requests are sent at a fixed
 * arrival rate whatever the server answers (an open loop), not by N connections that each wait for
 * their answer (autocannon's closed loop, even with overallRate: a slow answer delays the next
 * sends, so a stall is measured once instead of once per request that arrived during it). Each
 * latency runs from the request's scheduled send time, not from when it was actually written: if the
 * driver itself falls behind (busy cores), that delay counts too, which avoids coordinated omission.
 *
 * node:http with a keep-alive agent: a new connection is opened only when every open one is busy,
 * so the number of sockets follows the concurrency the rate and the latency call for.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { checkOnce, type ChildServer } from './measure';
import { cpuMs, percentile } from './support';
import type { Scenario } from './scenarios';

export interface OpenLoopMeasurement {
  rate: number;
  sent: number;
  answered: number;
  /** answered with another status than the scenario's, failed, or unanswered at the end */
  errors: number;
  /** what the errors were: a status, `failed` (the connection) or `unanswered` */
  errorKinds: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** the server process's CPU (user + system) per answered request */
  cpuMsPerRequest: number;
  /** the 1-minute load average when the run started and when it ended */
  loadBefore: number;
  loadAfter: number;
}

/** How long the answers of the last requests are waited for after the last send. */
const DRAIN_MS = 10_000;

export async function openLoop(server: ChildServer, scenario: Scenario, rate: number, durationS: number): Promise<OpenLoopMeasurement> {
  await checkOnce(server, scenario);
  const target = new URL(`${server.url}${scenario.path}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const body = scenario.body === undefined ? undefined : Buffer.from(scenario.body);
  const headers = { ...scenario.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
  const total = Math.round(rate * durationS);
  const latencies: number[] = [];
  const errorKinds: Record<string, number> = {};
  const error = (kind: string) => (errorKinds[kind] = (errorKinds[kind] ?? 0) + 1);
  let outstanding = 0;
  let sent = 0;
  let finished: (() => void) | undefined;

  const send = (scheduledNs: bigint) => {
    sent += 1;
    outstanding += 1;
    const done = (failure?: string) => {
      outstanding -= 1;
      if (failure === undefined) latencies.push(Number(process.hrtime.bigint() - scheduledNs) / 1e6);
      else error(failure);
      if (outstanding === 0 && sent === total) finished?.();
    };
    const request = http.request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: scenario.method, headers, agent },
      (response) => {
        const failure = response.statusCode === scenario.expectStatus ? undefined : String(response.statusCode);
        // The whole body read: the answer is complete when its last byte arrived.
        response.on('data', () => undefined);
        response.on('end', () => done(failure));
        response.on('error', () => done('failed'));
      },
    );
    request.on('error', () => done('failed'));
    request.end(body);
  };

  const loadBefore = loadavg()[0]!;
  const cpuBefore = cpuMs(server.process.pid!);
  const start = process.hrtime.bigint();
  const intervalNs = BigInt(Math.round(1e9 / rate));
  // A 1 ms tick sends every request whose time has come: the schedule is kept by the clock, not by
  // the timer (a late tick sends the requests it owes at once, each still timed from its own slot).
  await new Promise<void>((resolve) => {
    finished = resolve;
    const tick = () => {
      const now = process.hrtime.bigint();
      while (sent < total && start + BigInt(sent) * intervalNs <= now) send(start + BigInt(sent) * intervalNs);
      if (sent === total) {
        clearInterval(timer);
        if (outstanding === 0) resolve();
        else setTimeout(resolve, DRAIN_MS).unref();
      }
    };
    const timer = setInterval(tick, 1);
  });
  const cpuUsed = cpuMs(server.process.pid!) - cpuBefore;
  const unanswered = outstanding;
  const kinds = { ...errorKinds, ...(unanswered ? { unanswered } : {}) };
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rate,
    sent,
    answered: latencies.length,
    errors: Object.values(kinds).reduce((sum, n) => sum + n, 0),
    errorKinds: kinds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    cpuMsPerRequest: cpuUsed / Math.max(latencies.length, 1),
    loadBefore,
    loadAfter: loadavg()[0]!,
  };
}

export interface OpenLoopRow {
  scenario: string;
  runs: OpenLoopMeasurement[];
  failure?: string;
}

export function openLoopTable(rows: OpenLoopRow[]): string {
  const head = ['scenario', 'rate req/s', 'sent', 'answered', 'errors', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'CPU ms/req', 'load avg'];
  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
  const lines = rows.flatMap((row) =>
    row.failure
      ? [[row.scenario, `failed: ${row.failure.replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 120)}`, ...head.slice(2).map(() => '-')]]
      : row.runs.map((m) => [
          row.scenario,
          String(m.rate),
          String(m.sent),
          String(m.answered),
          m.errors
            ? `${m.errors} (${Object.entries(m.errorKinds)
                .map(([kind, n]) => `${kind}: ${n}`)
                .join(', ')})`
            : '0',
          fmt(m.p50),
          fmt(m.p95),
          fmt(m.p99),
          fmt(m.max),
          fmt(m.cpuMsPerRequest, 2),
          `${fmt(m.loadBefore)}–${fmt(m.loadAfter)}`,
        ]),
  );
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...lines.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}
