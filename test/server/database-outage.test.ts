/**
 * PostgreSQL going away under a running service, and coming back: a real fault, made by a TCP
 * proxy between the app's pool and the shared PostgreSQL (which keeps running for everyone else).
 * While it is away, REST and GraphQL answer 503 quickly (never hang), /readyz says not ready, and a
 * lead cut in the middle of its transaction leaves nothing behind; once it is back, requests succeed
 * again without restarting anything.
 *
 * PostgreSQL only: PGlite runs inside the process and cannot become unreachable.
 */
import pg from 'pg';
import { dealershipOf, postLead, setQuota } from '../notifications/support';
import { TEST_DATABASE_URL } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

/** Prisma's default interactive-transaction timeout (the lead's transaction sets none of its own). */
const PRISMA_TRANSACTION_TIMEOUT_MS = 5_000;
/** "Fast": well under any client timeout, and far from a hang. */
const FAST_MS = 3_000;
const APP_NAME = 'vr-app-through-proxy';

interface GraphqlBody {
  data?: unknown;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe('PostgreSQL outage and recovery', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  /** A connection of the test's own, straight to PostgreSQL, to look at and lock things. */
  let admin: pg.Client;

  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    server = await startTestServer('postgres', {
      reports: 20,
      appDatabaseUrl: (url) => {
        const proxied = new URL(proxy.urlFor(url));
        // Tells the app's connections apart from the test's own in pg_stat_activity.
        proxied.searchParams.set('application_name', APP_NAME);
        return proxied.toString();
      },
    });
    admin = new pg.Client({ connectionString: server.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.close();
    await proxy?.close();
  });

  const restGet = (path = '/public/dealerships/') => fetch(`${server.url}${path}`, { headers: { 'x-api-key': server.keys[0]! } });
  const graphqlPost = (query = '{ dealerships { total } }') =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });

  /** Queries of the app stuck behind a lock, inside PostgreSQL. */
  const lockWaiters = async (): Promise<{ pid: number; query: string }[]> => {
    const { rows } = await admin.query<{ pid: number; query: string }>(
      "SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = $1",
      [APP_NAME],
    );
    return rows;
  };
  /**
   * Whether a statement whose first table is `table` waits on a lock. Not any mention: the REST
   * page of dealerships joins "users" for its counts, and matching that made the GraphQL request's
   * own statement look already in flight when it was not yet sent.
   */
  const waitingOn = async (table: string) => (await lockWaiters()).some((w) => /"public"\."(\w+)"/.exec(w.query)?.[1] === table);

  /** Holds ACCESS EXCLUSIVE locks on `tables` from another connection until `release()`. */
  async function lockTables(...tables: string[]): Promise<{ release(): Promise<void> }> {
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    let released = false;
    return {
      async release() {
        if (released) return;
        released = true;
        await locker.query('ROLLBACK');
        await locker.end();
      },
    };
  }

  /**
   * A REST request and a GraphQL one, each past authentication and waiting inside PostgreSQL (on a
   * locked table) when `fault` strikes. The lock goes right after the fault: a query the fault did
   * not reach then finishes instead of waiting for the test.
   */
  async function inFlightWhen(fault: () => Promise<void>): Promise<{ rest: Response; graphql: Response; faultAt: number }> {
    const lock = await lockTables('dealerships', 'users');
    try {
      const rest = restGet('/public/dealerships/');
      const graphql = graphqlPost('{ users { total } }');
      await waitFor(async () => (await waitingOn('dealerships')) && (await waitingOn('users')));
      const faultAt = Date.now();
      await fault();
      await lock.release();
      return { rest: await rest, graphql: await graphql, faultAt };
    } finally {
      await lock.release();
    }
  }

  async function expectRest503(response: Response, startedAt: number): Promise<void> {
    expect(Date.now() - startedAt).toBeLessThan(FAST_MS);
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as { detail: string };
    expect(body).toEqual({ detail: expect.stringMatching(/unavailable|too long/i) });
    expect(JSON.stringify(body)).not.toMatch(/prisma|127\.0\.0\.1|ECONN|postgres/i);
  }

  async function expectGraphql503(response: Response, startedAt: number): Promise<void> {
    expect(Date.now() - startedAt).toBeLessThan(FAST_MS);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as GraphqlBody;
    expect(body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(body)).not.toMatch(/prisma|127\.0\.0\.1|ECONN/i);
  }

  it('serves normally through the proxy', async () => {
    expect((await restGet()).status).toBe(200);
    const graphql = (await (await graphqlPost()).json()) as GraphqlBody;
    expect(graphql.errors).toBeUndefined();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('answers requests in flight when the connection breaks with a quick 503, REST and GraphQL alike', async () => {
    try {
      const { rest, graphql, faultAt } = await inFlightWhen(() => proxy.cut());
      await expectRest503(rest, faultAt);
      await expectGraphql503(graphql, faultAt);
    } finally {
      await proxy.restore();
    }
  });

  it('answers 503 when PostgreSQL terminates the connections, as a restart or failover does (57P01)', async () => {
    const { rest, graphql, faultAt } = await inFlightWhen(async () => {
      await admin.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1', [APP_NAME]);
    });
    await expectRest503(rest, faultAt);
    await expectGraphql503(graphql, faultAt);
    // The pool replaces the terminated connections by itself.
    expect((await restGet()).status).toBe(200);
  });

  it('answers 503 quickly while PostgreSQL is unreachable, and /readyz is not ready', async () => {
    await proxy.cut();
    try {
      let startedAt = Date.now();
      await expectRest503(await restGet(), startedAt);
      startedAt = Date.now();
      await expectRest503(await restGet('/public/reports/?limit=1'), startedAt);
      startedAt = Date.now();
      await expectGraphql503(await graphqlPost(), startedAt);

      startedAt = Date.now();
      const lead = await postLead(server, server.keys[0], { dealership: dealershipOf(server, 0).dealership.id, name: 'Outage Lead' });
      expect(Date.now() - startedAt).toBeLessThan(FAST_MS);
      expect(lead.status).toBe(503);

      startedAt = Date.now();
      const ready = await fetch(`${server.url}/readyz`);
      expect(Date.now() - startedAt).toBeLessThan(FAST_MS);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not ready', checks: { database: false } });
      // Liveness is about the process, which is fine.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await proxy.restore();
    }
    expect(await server.db.prisma.contact.count({ where: { name: 'Outage Lead' } })).toBe(0);
  });

  it('serves again on its own once PostgreSQL is back, without a restart', async () => {
    await proxy.cut();
    expect((await restGet()).status).toBe(503);
    const connectionsBefore = proxy.connectionsAccepted;
    await proxy.restore();
    const backAt = Date.now();
    await waitFor(async () => (await restGet()).status === 200, 5_000);
    expect(Date.now() - backAt).toBeLessThan(FAST_MS);
    // New connections were opened: the pool replaced the broken ones by itself.
    expect(proxy.connectionsAccepted).toBeGreaterThan(connectionsBefore);
    const graphql = (await (await graphqlPost()).json()) as GraphqlBody;
    expect(graphql.errors).toBeUndefined();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('answers 503 with Retry-After when a lead’s transaction outlives Prisma’s transaction timeout (P2028, as in a failover’s stall), nothing written', async () => {
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 10, 3);
    const lead = { dealership: dealership.id, name: 'Expired Transaction', email: 'expired@example.com', sendEmail: true };
    // The transaction waits on the outbox past Prisma's interactive-transaction timeout (5 s).
    const lock = await lockTables('notification_outbox');
    let answer: Response;
    try {
      const response = fetch(`${server.url}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json', 'idempotency-key': 'expired-transaction' },
        body: JSON.stringify(lead),
      });
      await waitFor(async () => (await lockWaiters()).length > 0);
      await new Promise((resolve) => setTimeout(resolve, PRISMA_TRANSACTION_TIMEOUT_MS + 1_000));
      await lock.release();
      answer = await response;
    } finally {
      await lock.release();
    }
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(await answer.json()).toEqual({ detail: expect.stringMatching(/unavailable|too long/i) });
    expect(await server.db.prisma.contact.count({ where: { name: 'Expired Transaction' } })).toBe(0);
    expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: entityId } })).remote_quota_used).toBe(3);
  });

  it('cuts a lead in the middle of its transaction: 503, nothing written, and the retry succeeds', async () => {
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 10, 3);
    const before = {
      reports: await server.db.prisma.report.count(),
      contacts: await server.db.prisma.contact.count(),
      outbox: await server.db.prisma.notificationOutbox.count(),
    };
    const lead = { dealership: dealership.id, name: 'Cut Mid Transaction', email: 'cut@example.com', sendEmail: true };

    // The transaction takes the quota unit, writes the contact and the report, then waits here.
    const lock = await lockTables('notification_outbox');
    let waiting: number[] = [];
    const response = postLead(server, server.keys[0], lead, { 'idempotency-key': 'cut-mid-transaction' });
    try {
      await waitFor(async () => (await lockWaiters()).length > 0);
      waiting = (await lockWaiters()).map((w) => w.pid);
      const cutAt = Date.now();
      await proxy.cut();
      const answer = await response;
      expect(Date.now() - cutAt).toBeLessThan(FAST_MS);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({ detail: expect.any(String) });
    } finally {
      await lock.release();
      await proxy.restore();
    }
    // The backend finishes its statement, finds its client gone, and rolls the transaction back.
    await waitFor(async () => {
      const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [waiting]);
      return rows.length === 0;
    });
    expect({
      reports: await server.db.prisma.report.count(),
      contacts: await server.db.prisma.contact.count(),
      outbox: await server.db.prisma.notificationOutbox.count(),
    }).toEqual(before);
    expect(await server.db.prisma.idempotencyKey.count({ where: { key: 'cut-mid-transaction' } })).toBe(0);
    const entity = await server.db.prisma.entity.findUniqueOrThrow({ where: { id: entityId } });
    expect(entity.remote_quota_used).toBe(3);

    // The client's retry (same Idempotency-Key) is a first attempt: created once, quota taken once.
    let retry: Awaited<ReturnType<typeof postLead>> | undefined;
    await waitFor(async () => {
      retry = await postLead(server, server.keys[0], lead, { 'idempotency-key': 'cut-mid-transaction' });
      return retry.status !== 503;
    }, 5_000);
    expect(retry?.status).toBe(201);
    expect(await server.db.prisma.contact.count({ where: { name: 'Cut Mid Transaction' } })).toBe(1);
    expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: entityId } })).remote_quota_used).toBe(4);
  });
});
