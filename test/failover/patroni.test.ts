/**
 * High availability for real (docs/deploy.md, "High availability: Patroni"): etcd, three
 * PostgreSQL 15 nodes under Patroni in synchronous mode, HAProxy (/primary, /replica) and
 * PgBouncer, started by loadtest/patroni-topology.ts from deploy/patroni/. Two instances of the
 * service (each with its outbox dispatcher and its key cache's LISTEN) take lead creations with
 * Idempotency-Keys and reads from several clients while the leader's postmaster is killed with
 * `kill -9`. Checked: writes succeed again within 30 s (the gap is printed); every lead answered
 * 201 is on the new primary; a retried key made exactly one report; no 5xx but 503 (with
 * Retry-After) and no answer slower than the request deadline; /readyz answers within its bound,
 * and is 503 while the leader is frozen longer than that bound; the dispatcher and the listener
 * are back on the new primary; the old leader rejoins as a replica.
 *
 * Needs patroni, etcd-server, haproxy and pgbouncer from Debian (.ci/run installs them): without
 * them this test FAILS with the apt-get command to run, it is never skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../src/platform/db/database';
import { createHttpServer } from '../../src/platform/http/http-server';
import { READY_CHECK_TIMEOUT_MS } from '../../src/platform/http/health';
import { sleep } from '../../loadtest/net';
import { query } from '../../loadtest/replication-cluster';
import { missingPatroniPrerequisites, startPatroniTopology, type PatroniTopology } from '../../loadtest/patroni-topology';
import { seedTopology, topologyService } from './topology-service';

// Start-up ~10-30 s, traffic until writes are back (< 30 s) plus a margin, rejoin and checks.
jest.setTimeout(170_000);
/** Each start's wait for a leader and two streaming standbys (alone: ~10 s; under the whole suite: 8-17 s). */
const HEALTHY_WITHIN_MS = 90_000;
/**
 * Two starts, each with all the waits inside startPatroniTopology (HEALTHY_WITHIN_MS, then up to
 * 100 s for etcd, HAProxy and PgBouncer): a failed start reports its own error (with the processes'
 * logs), not the hook's timeout.
 */
const START_TIMEOUT_MS = 2 * (HEALTHY_WITHIN_MS + 100_000) + 40_000;

/**
 * The topology, started a second time when the first start fails: what is tested is the failover,
 * and one CI run (2026-11-26) had a start that never became healthy within 150 s. The first
 * failure is printed with the processes' logs, never hidden; a second failure fails the test.
 */
async function startTopology(): Promise<PatroniTopology> {
  try {
    return await startPatroniTopology({ healthyWithinMs: HEALTHY_WITHIN_MS });
  } catch (error) {
    process.stdout.write(`\nPatroni topology: the first start failed, starting it again. ${(error as Error).message}\n`);
    return startPatroniTopology({ healthyWithinMs: HEALTHY_WITHIN_MS });
  }
}

/** The service's own deadline: an answer slower than this (plus transit) is a hang. */
const REQUEST_TIMEOUT_MS = 10_000;
const WRITERS = 4;
const READERS = 2;
const WRITE_GAP_LIMIT_MS = 30_000;
/** What a /readyz answer may take beyond its own bound on a loaded CI machine (HTTP, event loop). */
const PROBE_TRANSIT_MS = 1_500;

interface RunningApp {
  url: string;
  db: Database;
  close(): Promise<void>;
}

let topology: PatroniTopology | undefined;
let dataDir: string;
let apiKey: string;
let dealershipId: string;
const apps: RunningApp[] = [];

async function startApp(): Promise<RunningApp> {
  const {
    db,
    config,
    dispatcher,
    app: express,
  } = await topologyService(topology!, {
    dataDir,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    label: 'patroni',
  });
  const server: Server = createHttpServer(express, { requestTimeoutMs: config.requestTimeoutMs });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const app: RunningApp = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    close: async () => {
      await dispatcher.stop().catch(() => undefined);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.close();
    },
  };
  apps.push(app);
  return app;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
  /** the client gave up (REQUEST_TIMEOUT_MS + 5 s) or the connection failed */
  failed?: string;
  body?: unknown;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const began = performance.now();
  try {
    const response = await fetch(url, {
      ...init,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 5_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - began, body };
  } catch (error) {
    return { status: 0, retryAfter: null, ms: performance.now() - began, failed: (error as Error).message };
  }
}

beforeAll(async () => {
  // Never a silent skip: a machine without the packages fails here, saying what to install.
  const missing = missingPatroniPrerequisites();
  if (missing) throw new Error(missing);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vr-failover-data-'));
  topology = await startTopology();
  ({ apiKey, dealershipId } = await seedTopology(topology, { reports: 40, quota: 100_000 }));
}, START_TIMEOUT_MS);

afterAll(async () => {
  for (const app of apps.splice(0)) await app.close().catch(() => undefined);
  await topology?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('Patroni failover under traffic (etcd + 3 PostgreSQL nodes, synchronous mode, HAProxy, PgBouncer)', () => {
  it('rides through kill -9 of the leader: writes back within 30 s, no acknowledged lead lost, no duplicate, only 503s, old leader rejoins', async () => {
    const cluster = topology!;
    const instances = [await startApp(), await startApp()];
    // Both instances answer and are ready before the fault.
    for (const app of instances) expect((await call(`${app.url}/readyz`)).status).toBe(200);

    const acknowledged = new Map<string, string>(); // Idempotency-Key -> token answered 201
    const retriedKeys = new Set<string>();
    const answers: { at: number; kind: 'write' | 'read' | 'readyz'; answer: Answer }[] = [];
    const origin = performance.now();
    const now = () => performance.now() - origin;
    // Set once the leader is killed (an object: the traffic loops read it as it changes).
    const fault: { killedAt?: number } = {};
    let firstWriteAfterKill: number | undefined;
    let lastWriteBeforeKill: number | undefined;
    let stopAt = Number.POSITIVE_INFINITY;
    let sequence = 0;

    const writer = async (client: number) => {
      while (now() < stopAt) {
        const key = `failover-${client}-${(sequence += 1)}`;
        const body = JSON.stringify({ dealership: dealershipId, name: key, email: 'lead@example.com', sendEmail: true });
        // The same key until a 201 (or a 4xx: a test failure, recorded): at most 60 tries.
        for (let attempt = 0; attempt < 60; attempt += 1) {
          const app = instances[(client + attempt) % instances.length]!;
          const sentAt = now();
          const answer = await call(`${app.url}/public/reports/create-lead`, { method: 'POST', body, headers: { 'idempotency-key': key } });
          answers.push({ at: sentAt, kind: 'write', answer });
          if (answer.status === 201) {
            acknowledged.set(key, (answer.body as { token: string }).token);
            if (fault.killedAt === undefined) lastWriteBeforeKill = now();
            else if (sentAt >= fault.killedAt) firstWriteAfterKill ??= now();
            break;
          }
          if (answer.status !== 503 && answer.status !== 0) break;
          retriedKeys.add(key);
          await sleep(answer.status === 503 ? 250 : 500);
        }
      }
    };
    const reader = async (client: number) => {
      while (now() < stopAt) {
        const app = instances[client % instances.length]!;
        answers.push({ at: now(), kind: 'read', answer: await call(`${app.url}/public/reports/?limit=5`) });
        await sleep(50);
      }
    };
    const readiness = async () => {
      while (now() < stopAt) {
        answers.push({ at: now(), kind: 'readyz', answer: await call(`${instances[0]!.url}/readyz`) });
        await sleep(200);
      }
    };

    const traffic = [
      ...Array.from({ length: WRITERS }, (_, i) => writer(i)),
      ...Array.from({ length: READERS }, (_, i) => reader(i)),
      readiness(),
    ];
    await sleep(3_000);
    const killed = await cluster.killLeaderPostmaster();
    const killedAt = now();
    fault.killedAt = killedAt;
    // Traffic goes on until writes are back and a few more seconds, bounded by the limit.
    const deadline = killedAt + WRITE_GAP_LIMIT_MS + 5_000;
    while (firstWriteAfterKill === undefined && now() < deadline) await sleep(100);
    stopAt = now() + 3_000;
    await Promise.all(traffic);

    const gapMs = firstWriteAfterKill === undefined ? undefined : firstWriteAfterKill - (lastWriteBeforeKill ?? killedAt);
    const byStatus: Record<string, number> = {};
    for (const { kind, answer } of answers) {
      const label = `${kind} ${answer.status === 0 ? `failed (${answer.failed})` : answer.status}`;
      byStatus[label] = (byStatus[label] ?? 0) + 1;
    }
    process.stdout.write(
      `\nPatroni failover: killed ${killed.name}'s postmaster (pid ${killed.pid}) at ${(killedAt / 1000).toFixed(1)} s; ` +
        `write gap ${gapMs === undefined ? 'never closed' : `${(gapMs / 1000).toFixed(1)} s`} ` +
        `(last 201 before the kill -> first 201 of a request sent after it); ` +
        `answers ${JSON.stringify(byStatus)}; leads acknowledged ${acknowledged.size}, retried keys ${retriedKeys.size}\n`,
    );

    // Writes are back within 30 s.
    expect(gapMs).toBeDefined();
    expect(gapMs!).toBeLessThan(WRITE_GAP_LIMIT_MS);
    // No 5xx but 503, each with Retry-After; no request hung past the deadline (nor failed at the socket).
    const bad = answers.filter(({ answer }) => answer.status === 0 || (answer.status >= 500 && answer.status !== 503));
    expect(bad.map(({ kind, answer }) => ({ kind, status: answer.status, failed: answer.failed, body: answer.body }))).toEqual([]);
    const unavailable = answers.filter(({ kind, answer }) => kind !== 'readyz' && answer.status === 503);
    expect(unavailable.filter(({ answer }) => !answer.retryAfter)).toEqual([]);
    expect(Math.max(...answers.map(({ answer }) => answer.ms))).toBeLessThan(REQUEST_TIMEOUT_MS + 4_000);
    // /readyz never waits with PgBouncer's queue: each answer comes within its bound. Whether one of
    // them said "not ready" depends on how long this failover left no primary: a probe that finds
    // the new primary within its 2 s rightly says "ready", so the next test makes an outage
    // longer than the bound on purpose.
    const probesAfterKill = answers.filter(({ kind, at, answer }) => kind === 'readyz' && at + answer.ms >= killedAt);
    expect(probesAfterKill.length).toBeGreaterThan(0);
    expect(probesAfterKill.filter(({ answer }) => answer.ms > READY_CHECK_TIMEOUT_MS + PROBE_TRANSIT_MS)).toEqual([]);

    // Every lead answered 201 is on the new primary; every key made exactly one report.
    const rows = await query<{ name: string; n: number; tokens: string[] }>(
      cluster.primaryUrl,
      `SELECT c.name, count(*)::int AS n, array_agg(r.token::text) AS tokens
         FROM reports r JOIN contacts c ON c.id = r.contact_id
        WHERE c.name LIKE 'failover-%' GROUP BY c.name`,
    );
    const found = new Map(rows.map((r) => [r.name, r]));
    const lost = [...acknowledged].filter(([key, token]) => !found.get(key)?.tokens.includes(token));
    expect(lost).toEqual([]);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(retriedKeys.size).toBeGreaterThan(0);
    expect([...retriedKeys].filter((key) => acknowledged.has(key) && found.get(key)?.n !== 1)).toEqual([]);

    // The old leader rejoins as a replica of the new one; both standbys stream.
    const { leader } = await cluster.waitUntilHealthy({ timeoutMs: 60_000 });
    expect(leader).not.toBe(killed.name);
    const members = await cluster.members();
    expect(members.find((m) => m.name === killed.name)).toEqual(
      expect.objectContaining({ role: expect.stringMatching(/replica|sync_standby/) }),
    );

    // The outbox dispatchers delivered every acknowledged lead's e-mail, through the new primary.
    const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
      const end = Date.now() + timeoutMs;
      while (!(await check().catch(() => false))) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await sleep(250);
      }
    };
    await waitUntil('the outbox to drain', async () => {
      const [row] = await query<{ pending: number }>(
        cluster.primaryUrl,
        "SELECT count(*)::int AS pending FROM notification_outbox WHERE status <> 'sent'",
      );
      return row!.pending === 0;
    });
    // Each instance's key-cache listener is connected to the new primary again.
    await waitUntil('both listeners on the new primary', async () => {
      const [row] = await query<{ n: number }>(
        cluster.primaryUrl,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'vr-api-listener'",
      );
      return row!.n === instances.length;
    });
    for (const app of instances) expect((await call(`${app.url}/readyz`)).status).toBe(200);
  });

  it('says "not ready" on /readyz within its 2 s bound while the leader is frozen (queries wait on it), ready again once it runs', async () => {
    const cluster = topology!;
    await cluster.waitUntilHealthy({ timeoutMs: 60_000 });
    const app = apps[0] ?? (await startApp());
    expect((await call(`${app.url}/readyz`)).status).toBe(200);

    // Frozen well inside the leader key's TTL: no failover, the one primary simply does not answer.
    const paused = await cluster.pauseLeader();
    let during: Answer;
    try {
      during = await call(`${app.url}/readyz`);
    } finally {
      cluster.resume(paused);
    }
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ status: 'not ready', checks: { database: false } });
    expect(during.ms).toBeGreaterThanOrEqual(READY_CHECK_TIMEOUT_MS - 50);
    expect(during.ms).toBeLessThan(READY_CHECK_TIMEOUT_MS + PROBE_TRANSIT_MS);

    const end = Date.now() + 30_000;
    let after = await call(`${app.url}/readyz`);
    while (after.status !== 200 && Date.now() < end) {
      await sleep(250);
      after = await call(`${app.url}/readyz`);
    }
    expect(after.status).toBe(200);
    expect(await cluster.leader()).toBe(paused.name);
  });
});
