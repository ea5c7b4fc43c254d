/**
 * Wrong keys cost their senders, not the other tenants (issue 22, N6), over real HTTP:
 * - a wrong key is looked up once, then remembered as unknown;
 * - at most MAX_CONCURRENT_LOOKUPS lookups run at once: a flood of distinct wrong keys cannot
 *   take the pool from the other tenants (PostgreSQL: PGlite has one connection and no pool);
 * - a request without a valid key has its body read only up to 16 kB (its refusal is answered and
 *   the connection closed), while a malformed small body is still FastAPI's 422.
 */
import pg from 'pg';
import { MAX_CONCURRENT_LOOKUPS } from '../../src/features/auth/api-key-cache';
import { MAX_REFUSAL_HOLD } from '../../src/api/request-context';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

const wrongKey = (i: number | string) => `vr_live_${String(i).padStart(32, 'x')}`;

describe.each(['pglite', 'postgres'] as const)('wrong keys on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 5, config: { pgPoolMax: 8, pgConnectionTimeoutMs: 2_000 } });
  });
  afterAll(() => server.close());

  const keyLookups = () => server.queries.filter((query) => /FROM api_keys WHERE digest/.test(query)).length;

  it('a wrong key is looked up once, then answered 401 from memory', async () => {
    server.resetQueryLog();
    for (let i = 0; i < 5; i += 1) {
      const response = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': wrongKey('once') } });
      expect(response.status).toBe(401);
    }
    expect(keyLookups()).toBe(1);
  });

  it('a request without a valid key has at most 16 kB of its body read: a 95 kB body is refused with the connection closed', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(95_000) });
    for (const headers of [{}, { 'x-api-key': wrongKey('body') }] as Record<string, string>[]) {
      const rest = await fetch(`${server.url}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: big,
      });
      expect(rest.status).toBe(401);
      expect(rest.headers.get('connection')).toBe('close');
      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: `{ __typename }`, padding: 'x'.repeat(95_000) }),
      });
      expect(graphql.status).toBe(401);
      expect(graphql.headers.get('connection')).toBe('close');
    }
    // With the key, the same body is read whole (and judged: the name is too long).
    const keyed = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys[0]! },
      body: big,
    });
    expect(keyed.status).toBe(422);
    // A small malformed body without a key is still FastAPI's 422 (it reads the body first).
    const malformed = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: { type: string }[] }).detail[0]!.type).toBe('json_invalid');
  });

  if (kind === 'postgres') {
    it(`a flood of distinct wrong keys holds at most ${MAX_CONCURRENT_LOOKUPS} pooled connections; another tenant is served meanwhile`, async () => {
      const victim = server.keys[1]!;
      expect((await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': victim } })).status).toBe(200);
      // Every lookup of api_keys waits behind this lock until it is released.
      const locker = new pg.Client({ connectionString: server.databaseUrl });
      await locker.connect();
      const observer = new pg.Client({ connectionString: server.databaseUrl });
      await observer.connect();
      const waitingLookups = async () =>
        Number(
          (
            await observer.query<{ n: string }>(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM api_keys WHERE digest%'`,
            )
          ).rows[0]!.n,
        );
      try {
        await locker.query('BEGIN; LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
        const flood = Array.from({ length: 30 }, (_, i) =>
          fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': wrongKey(`flood${i}`) } }).then((r) => r.status),
        );
        await waitFor(async () => (await waitingLookups()) >= MAX_CONCURRENT_LOOKUPS, 10_000, 50);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await waitingLookups()).toBe(MAX_CONCURRENT_LOOKUPS);
        // The victim's key is in memory; its statements find a free connection.
        const served = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': victim } });
        expect(served.status).toBe(200);
        await locker.query('ROLLBACK');
        expect(new Set(await Promise.all(flood))).toEqual(new Set([401]));
      } finally {
        await locker.end();
        await observer.end();
      }
    });
  }
});

describe('refusals held longer for an address that goes on asking', () => {
  let server: TestServer;
  const delay = 50;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      reports: 5,
      config: {
        refusalDelayMs: delay,
        rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 5 },
      },
    });
  });
  afterAll(() => server.close());

  const timedRefusal = async (key: string) => {
    const started = performance.now();
    const response = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  };

  it(`makes an address at 8 times its budget wait ${MAX_REFUSAL_HOLD} x REFUSAL_DELAY_MS for each refusal`, async () => {
    const first = await timedRefusal(wrongKey('held-0'));
    expect(first.status).toBe(401);
    // 40 more at once: the address has asked for 8 times its budget of 5 (past the 6 that hold longest).
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => timedRefusal(wrongKey(`held-${i + 1}`))));
    expect(new Set(burst.map((b) => b.status))).toEqual(new Set([401, 429]));
    const held = await timedRefusal(wrongKey('held-last'));
    expect(held.status).toBe(429);
    // A lower bound only (a loaded machine adds time, never removes it): one delay before.
    expect(held.ms).toBeGreaterThanOrEqual(MAX_REFUSAL_HOLD * delay * 0.95);
  });
});
