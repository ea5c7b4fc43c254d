/**
 * Read replicas and PgBouncer, for real: a PostgreSQL 15 primary, a hot standby made from it with
 * pg_basebackup, and PgBouncer (transaction mode) in front of the primary, all on free ports in a
 * temporary folder (loadtest/replication-cluster.ts). The app writes through PgBouncer, migrates
 * directly, and reads lists and fetches from the standby; where each statement ran is read from
 * pg_stat_statements and pg_stat_activity on each server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type AppConfig } from '../../src/app/config';
import { createApp } from '../../src/app/create-app';
import { openDatabase, type Database } from '../../src/platform/db/database';
import { applyMigrations } from '../../src/platform/db/migrations/apply';
import { createHttpServer } from '../../src/platform/http/http-server';
import { buildDemoDataset, type DemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import { PGBOUNCER_STATEMENT_TIMEOUT_MS, startReplicationCluster, type ReplicationCluster } from '../../loadtest/replication-cluster';
import { sleep } from '../../loadtest/net';

jest.setTimeout(120_000);

interface RunningApp {
  url: string;
  db: Database;
  close(): Promise<void>;
}

let cluster: ReplicationCluster | undefined;
let dataset: DemoDataset;
let apiKey: string;
let dealershipId: string;
let entityId: string;
const apps: RunningApp[] = [];

async function startApp(replicaMaxLagMs: number, primary?: { url: string }): Promise<RunningApp> {
  const db = await openDatabase({
    url: primary?.url ?? cluster!.pgbouncerUrl,
    directUrl: primary?.url ?? cluster!.primaryUrl,
    replicaUrls: primary ? [] : [cluster!.standbyUrl],
    replicaMaxLagMs,
    replicaCheckIntervalMs: 100,
    poolMax: 5,
    connectionTimeoutMs: 1_000,
    statementTimeoutMs: 30_000,
  });
  const defaults = loadConfig({});
  const config: AppConfig = {
    ...defaults,
    seedDemoData: false,
    nodeEnv: 'test',
    rateLimits: { ...defaults.rateLimits, requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 },
  };
  const server: Server = createHttpServer(await createApp({ db, config }), { requestTimeoutMs: config.requestTimeoutMs });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const app: RunningApp = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    db,
    close: async () => {
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

const get = async (app: RunningApp, path: string) => {
  const response = await fetch(`${app.url}${path}`, { headers: { 'x-api-key': apiKey } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const graphql = async (app: RunningApp, query: string) => {
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: unknown[] } };
};

const createLead = async (app: RunningApp, name: string) => {
  const response = await fetch(`${app.url}/public/reports/create-lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ dealership: dealershipId, name, email: 'lead@example.com', sendEmail: true }),
  });
  return { status: response.status, body: (await response.json()) as { token: string } };
};

/** Calls of SELECT statements reading `table`, per pg_stat_statements of the server at `url`. */
async function selectsOn(url: string, table: string): Promise<number> {
  const [row] = await cluster!.query<{ calls: number }>(
    url,
    `SELECT COALESCE(sum(calls), 0)::int AS calls FROM pg_stat_statements
     WHERE query ~* '^\\s*select' AND query ~* ('(from|join)\\s+("public"\\.)?"?' || $1 || '"?\\M')`,
    [table],
  );
  return row!.calls;
}

async function statementsLike(url: string, pattern: string): Promise<number> {
  const [row] = await cluster!.query<{ calls: number }>(
    url,
    'SELECT COALESCE(sum(calls), 0)::int AS calls FROM pg_stat_statements WHERE query ~* $1',
    [pattern],
  );
  return row!.calls;
}

const resetStatements = async () => {
  await cluster!.query(cluster!.primaryUrl, 'SELECT pg_stat_statements_reset()');
  await cluster!.query(cluster!.standbyUrl, 'SELECT pg_stat_statements_reset()');
};

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const metricsText = async (app: RunningApp) => (await fetch(`${app.url}/metrics`)).text();

beforeAll(async () => {
  cluster = await startReplicationCluster({ pgbouncer: true });
  // Migrations and seeding go to PostgreSQL itself, as `npm run db:migrate` would with DATABASE_DIRECT_URL.
  const direct = await openDatabase({ url: cluster.primaryUrl, poolMax: 2 });
  try {
    await direct.withSession((session) => applyMigrations(session));
    dataset = buildDemoDataset({ reports: 120 });
    const seeded = await seedDatabase(direct.prisma, dataset);
    const organization = dataset.organizations[0]!;
    apiKey = seeded.keys.find((k) => k.organization_id === organization.id)!.key;
    const dealership = dataset.dealerships.find((d) => d.organization_id === organization.id)!;
    dealershipId = dealership.id;
    entityId = dealership.entity_id;
    await direct.prisma.entity.update({
      where: { id: entityId },
      data: { remote_quota: 10_000, remote_quota_used: 0, quota_period_start: new Date(), quota_period_months: 1 },
    });
  } finally {
    await direct.close();
  }
  await cluster.waitForStandbyToCatchUp();
});

afterAll(async () => {
  for (const app of apps.splice(0)) await app.close().catch(() => undefined);
  await cluster?.stop();
});

afterEach(async () => {
  // Whatever a test did to the standby, the next one starts with it running and replaying.
  await cluster?.startStandby().catch(() => undefined);
  await cluster?.query(cluster.standbyUrl, 'SELECT pg_wal_replay_resume()').catch(() => undefined);
});

describe('read replicas and PgBouncer (primary + pg_basebackup standby + PgBouncer transaction mode)', () => {
  it('lists and fetches of both interfaces run on the standby; API-key checks and writes on the primary, through PgBouncer', async () => {
    const app = await startApp(5_000);
    expect(app.db.replicaStatus()).toEqual([expect.objectContaining({ healthy: true, usable: true, lagMs: 0 })]);
    await resetStatements();

    const token = (dataset.reports.find((r) => r.organization_id === dataset.organizations[0]!.id) as { token: string }).token;
    for (let i = 0; i < 10; i += 1) {
      expect((await get(app, `/public/reports/?limit=5&offset=${i}`)).status).toBe(200);
      expect((await get(app, `/public/reports/${token}`)).status).toBe(200);
      expect((await get(app, '/public/users/')).status).toBe(200);
      expect((await get(app, '/public/dealerships/')).status).toBe(200);
      const page = await graphql(app, '{ reports(limit: 3) { total items { id dealership { name } profile { name } } } }');
      expect(page.status).toBe(200);
      expect(page.body.errors).toBeUndefined();
    }

    // Reads: the standby served every list and fetch; the primary none of them. (Unfiltered
    // pages read their total from report_key_counts: 30 statements on reports, 20 on the counters.)
    expect(await selectsOn(cluster!.standbyUrl, 'reports')).toBeGreaterThanOrEqual(30);
    expect(await selectsOn(cluster!.standbyUrl, 'report_key_counts')).toBeGreaterThanOrEqual(20);
    expect(await selectsOn(cluster!.primaryUrl, 'report_key_counts')).toBe(0);
    expect(await selectsOn(cluster!.standbyUrl, 'users')).toBeGreaterThanOrEqual(10);
    expect(await selectsOn(cluster!.standbyUrl, 'dealerships')).toBeGreaterThanOrEqual(10);
    expect(await selectsOn(cluster!.primaryUrl, 'reports')).toBe(0);
    expect(await selectsOn(cluster!.primaryUrl, 'users')).toBe(0);
    // The API-key check ran on the primary (once: then from memory, kept exact by the primary's
    // NOTIFYs, heard on a connection to PostgreSQL itself, not through PgBouncer), never on the standby.
    expect(await statementsLike(cluster!.primaryUrl, 'api_keys')).toBeGreaterThanOrEqual(1);
    expect(await statementsLike(cluster!.standbyUrl, 'api_keys')).toBe(0);
    const listeners = await cluster!.query<{ n: number }>(
      cluster!.primaryUrl,
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'vr-api-listener' AND datname = 'vehicle_report'",
    );
    expect(listeners[0]!.n).toBe(1);
    // The standby's backends are the app's replica pool.
    const backends = await cluster!.query<{ application_name: string }>(
      cluster!.standbyUrl,
      "SELECT DISTINCT application_name FROM pg_stat_activity WHERE backend_type = 'client backend' AND datname = 'vehicle_report'",
    );
    expect(backends.map((b) => b.application_name)).toContain('vr-api-replica');
    const routing = app.db.readRouting();
    expect(routing.primary).toBe(0);
    expect(routing.replica).toBeGreaterThanOrEqual(60);

    // A write: lead creation (dealership check, idempotency, quota, report, outbox) on the primary, through PgBouncer.
    const lead = await createLead(app, 'Through PgBouncer');
    expect(lead.status).toBe(201);
    expect(await statementsLike(cluster!.primaryUrl, '^\\s*insert into "public"\\."reports"')).toBe(1);
    expect(await statementsLike(cluster!.primaryUrl, 'insert into "public"\\."notification_outbox"')).toBe(1);
    expect(await statementsLike(cluster!.standbyUrl, '^\\s*insert')).toBe(0);

    // PgBouncer: statement_timeout comes from its connect_query; migrations' sessions go directly to PostgreSQL.
    const [{ statement_timeout }] = await app.db.prisma.$queryRaw<{ statement_timeout: string }[]>`SHOW statement_timeout`;
    expect(statement_timeout).toBe(`${PGBOUNCER_STATEMENT_TIMEOUT_MS / 1000}s`);
    const session = await app.db.withSession((s) =>
      s.query<{ application_name: string; locked: boolean }>(
        "SELECT current_setting('application_name') AS application_name, pg_try_advisory_lock(72707369) AS locked",
      ),
    );
    expect(session).toEqual([{ application_name: 'vr-api-session', locked: true }]);
    expect((await app.db.withSession((s) => applyMigrations(s))).applied).toEqual([]);

    const metrics = await metricsText(app);
    expect(metrics).toMatch(/vr_db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+"\} 0/);
    expect(metrics).toMatch(/vr_db_reads_total\{target="replica"\} \d+/);
    await app.close();
    apps.splice(apps.indexOf(app), 1);
  });

  it('read-your-writes: a report just created, not yet replayed on the standby, is fetched from the primary', async () => {
    const app = await startApp(60_000);
    await cluster!.query(cluster!.standbyUrl, 'SELECT pg_wal_replay_pause()');
    const lead = await createLead(app, 'Read your writes');
    expect(lead.status).toBe(201);
    // The standby does not have it (replay paused) and is still in rotation (lag under 60 s).
    expect(await cluster!.query(cluster!.standbyUrl, 'SELECT 1 FROM reports WHERE token = $1', [lead.body.token])).toEqual([]);
    const before = app.db.readRouting();
    const fetched = await get(app, `/public/reports/${lead.body.token}`);
    expect(fetched.status).toBe(200);
    const viaGraphql = await graphql(app, `{ report(report_id: "${lead.body.token}") { id } }`);
    expect(viaGraphql.body).toEqual({ data: { report: { id: lead.body.token } } });
    const after = app.db.readRouting();
    expect(after.replica).toBeGreaterThan(before.replica);
    expect(after.fallbackNotFound - before.fallbackNotFound).toBe(2);
    // A report that exists nowhere: still 404, after asking both.
    expect((await get(app, '/public/reports/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('a replica further behind than REPLICA_MAX_LAG_MS is skipped (replay paused), and comes back when it catches up', async () => {
    const app = await startApp(500);
    await cluster!.query(cluster!.standbyUrl, 'SELECT pg_wal_replay_pause()');
    await sleep(600);
    // A write the standby receives but does not replay: its lag grows from the last replayed commit.
    expect((await createLead(app, 'Lagging')).status).toBe(201);
    await waitUntil('the replica to leave the rotation', () => app.db.replicaStatus()[0]!.usable === false);
    const status = app.db.replicaStatus()[0]!;
    expect(status.healthy).toBe(true);
    expect(status.lagMs).toBeGreaterThan(500);
    expect(await metricsText(app)).toMatch(/vr_db_replica_up\{replica="127\.0\.0\.1:\d+",in_rotation="false"\} 1/);
    const lagged = Number(/vr_db_replica_lag_seconds\{replica="[^"]+"\} ([\d.e+-]+)/.exec(await metricsText(app))![1]);
    expect(lagged).toBeGreaterThan(0.5);

    await resetStatements();
    const before = app.db.readRouting();
    for (let i = 0; i < 5; i += 1) expect((await get(app, '/public/reports/?limit=5')).status).toBe(200);
    const after = app.db.readRouting();
    expect(after.replica).toBe(before.replica);
    // the page (its profiles planned into it) and its total (the counter): 2 statements per
    // request, all on the primary
    expect(after.primary - before.primary).toBe(10);
    expect(await selectsOn(cluster!.standbyUrl, 'reports')).toBe(0);
    expect(await selectsOn(cluster!.primaryUrl, 'reports')).toBe(5);
    expect(await selectsOn(cluster!.primaryUrl, 'report_key_counts')).toBe(5);

    await cluster!.query(cluster!.standbyUrl, 'SELECT pg_wal_replay_resume()');
    await waitUntil('the replica to return to the rotation', () => app.db.replicaStatus()[0]!.usable);
    const back = app.db.readRouting();
    expect((await get(app, '/public/reports/?limit=5')).status).toBe(200);
    expect(app.db.readRouting().replica - back.replica).toBe(2);
  });

  it('the standby stopped under traffic: reads fall back to the primary, no 5xx; back in rotation once it is up again', async () => {
    const app = await startApp(5_000);
    const statuses = new Map<number, number>();
    let running = true;
    const token = (dataset.reports.find((r) => r.organization_id === dataset.organizations[0]!.id) as { token: string }).token;
    const paths = ['/public/reports/?limit=10', `/public/reports/${token}`, '/public/users/', '/public/dealerships/'];
    const worker = async (offset: number) => {
      for (let i = offset; running; i += 1) {
        const { status } = await get(app, paths[i % paths.length]!);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    await sleep(1_000);
    const beforeStop = app.db.readRouting();
    expect(beforeStop.replica).toBeGreaterThan(0);
    await cluster!.stopStandby();
    await sleep(1_500);
    const stopped = app.db.readRouting();
    await sleep(1_000);
    running = false;
    await Promise.all(workers);
    const after = app.db.readRouting();

    expect([...statuses.keys()]).toEqual([200]);
    expect(app.db.replicaStatus()[0]).toMatchObject({ healthy: false, usable: false });
    // While the standby is down every read goes to the primary.
    expect(after.replica).toBe(stopped.replica);
    expect(after.primary).toBeGreaterThan(stopped.primary);
    expect(await metricsText(app)).toMatch(/vr_db_replica_up\{replica="[^"]+",in_rotation="false"\} 0/);

    await cluster!.startStandby();
    await waitUntil('the standby to return to the rotation', () => app.db.replicaStatus()[0]!.usable, 30_000);
    const back = app.db.readRouting();
    expect((await get(app, '/public/users/')).status).toBe(200);
    expect(app.db.readRouting().replica).toBeGreaterThan(back.replica);
  });

  it('a write that reaches a standby (a primary demoted under an open connection) is a 503 with Retry-After, and /readyz is not ready', async () => {
    // What a connection opened before a failover meets: SQLSTATE 25006, read-only transaction.
    const app = await startApp(5_000, { url: cluster!.standbyUrl });
    for (const interfaceName of ['REST', 'GraphQL']) {
      const response =
        interfaceName === 'REST'
          ? await fetch(`${app.url}/public/reports/create-lead`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
              body: JSON.stringify({ dealership: dealershipId, name: 'to a standby', email: 'lead@example.com' }),
            })
          : await fetch(`${app.url}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
              body: JSON.stringify({
                query: `mutation { createLead(dealership: "${dealershipId}", name: "to a standby", email: "lead@example.com") { token } }`,
              }),
            });
      expect({ interfaceName, status: response.status }).toEqual({ interfaceName, status: 503 });
      expect(response.headers.get('retry-after')).toBe('5');
    }
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready', checks: { database: false } });
    // Reads still work there.
    expect((await get(app, '/public/users/')).status).toBe(200);
  });

  it('a retried Idempotency-Key that reaches a standby is a 503, never a replay: a 201 is only answered for a report the synchronous standbys have', async () => {
    // A Patroni leader cut off from its standbys keeps commits it could not replicate; demoted, it
    // restarts read-only with them, and HAProxy still routes to it for a second or two. A replay
    // read there acknowledged a lead the failover then rewound away (test/failover/nemeses.test.ts,
    // partition). The replay locks the key's row instead: a write, so it fails on a standby and,
    // on a primary, is answered only once its commit (after the report's) is replicated.
    const writer = await startApp(5_000);
    const body = JSON.stringify({ dealership: dealershipId, name: 'replayed on a standby', email: 'lead@example.com' });
    const post = (app: RunningApp) =>
      fetch(`${app.url}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': 'replay-on-standby' },
        body,
      });
    const created = await post(writer);
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    await cluster!.waitForStandbyToCatchUp();
    const onStandby = await startApp(5_000, { url: cluster!.standbyUrl });
    const replay = await post(onStandby);
    expect(replay.status).toBe(503);
    expect(replay.headers.get('retry-after')).toBe('5');
    // On the primary the same retry replays the report.
    const again = await post(writer);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { token: string }).token).toBe(token);
  });
});
