/**
 * An attacker's requests (issue: abuse resistance), over real HTTP on a real database: none of
 * them may cost more than its share, every one gets a clear 4xx, and none writes anything.
 * - without a key: refused before any GraphQL work, throttled per client address;
 * - with a key: operations capped in top-level fields and SQL statements, charged in statements;
 * - unbounded inputs: search terms, SMS length after placeholders, Idempotency-Key;
 * - production settings: no demo keys in the log, no public /metrics.
 */
import { randomUUID } from 'node:crypto';
import { assertSafeToServe, loadConfig } from '../../src/app/config';
import { MAX_SMS_SEGMENTS } from '../../src/features/leads/leads.service';
import { databaseFailureOf } from '../../src/platform/db/failures';
import { createMigratedDatabase } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';

const aliases = (count: number, field: string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

describe.each(['pglite', 'postgres'] as const)('abuse resistance on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let dealershipId: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
    key = server.keys[0]!;
    dealershipId = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[0]!.id)!.id;
  });
  afterAll(() => server.close());

  const countRows = async () => ({
    reports: await server.db.prisma.report.count(),
    contacts: await server.db.prisma.contact.count(),
    outbox: await server.db.prisma.notificationOutbox.count(),
  });

  const postLead = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ dealership: dealershipId, ...body }),
    });

  describe('without a key', () => {
    it('answers a 2,500-alias document (60 kB) 401 before parsing it, and runs no SQL but the key check', async () => {
      server.resetQueryLog();
      const bomb = await graphql(server, aliases(2_500, 'reports(limit: 0) { total }'), {}, undefined);
      expect(bomb.status).toBe(401);
      expect(bomb.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(bomb.body).not.toHaveProperty('data');
      const withBogusKey = await graphql(server, aliases(2_500, 'reports(limit: 0) { total }'), {}, `vr_live_${'Z'.repeat(32)}`);
      expect(withBogusKey.status).toBe(401);
      // A document that does not even parse is still a 401: the key comes first.
      expect((await graphql(server, '{ reports(', {}, undefined)).status).toBe(401);
      expect(server.queries.filter((q) => /"reports"|FROM reports/i.test(q))).toEqual([]);
    });

    it('still serves introspection (GraphiQL, code generators), but not a large document posing as one', async () => {
      const introspection = await graphql(server, '{ __schema { queryType { name } } }', {}, undefined);
      expect(introspection.status).toBe(200);
      expect(introspection.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
      const huge = `{ ${Array.from({ length: 2_000 }, (_, i) => `t${i}: __typename`).join(' ')} }`;
      expect((await graphql(server, huge, {}, undefined)).status).toBe(401);
    });
  });

  describe('with a key', () => {
    it('refuses thousands of aliases before running anything', async () => {
      server.resetQueryLog();
      // Past 10,000 tokens the parser itself stops.
      const huge = await graphql(server, aliases(2_500, 'reports(limit: 0) { total }'), {}, key);
      expect(huge.status).toBe(400);
      expect(huge.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/more that 10000 tokens/),
        extensions: { code: 'GRAPHQL_PARSE_FAILED' },
      });
      // Under it, more than 20 top-level fields is refused before execution.
      const wide = await graphql(server, aliases(300, 'reports(limit: 0) { total }'), {}, key);
      expect(wide.status).toBe(400);
      expect(wide.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', rootFields: 300, maximumRootFields: 20 });
      expect(wide.body).not.toHaveProperty('data');
      expect(server.queries.filter((q) => /reports/i.test(q))).toEqual([]);
    });

    it('caps the SQL statements of one operation, whatever the cost estimate says', async () => {
      // 20 root fields, each a list with a relation: cheap in items, 80 statements.
      const query = aliases(20, 'dealerships(limit: 1) { items { users(limit: 1) { total } } }');
      const response = await graphql(server, query, {}, key);
      expect(response.status).toBe(400);
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maximumStatements: 60 });
    });
  });

  describe('unbounded inputs', () => {
    it('bounds search terms over REST and GraphQL (422, no SQL)', async () => {
      const many = Array.from({ length: 11 }, (_, i) => `t${i}`).join(' ');
      server.resetQueryLog();
      const rest = await fetch(`${server.url}/public/reports/?search=${encodeURIComponent(many)}`, { headers: { 'x-api-key': key } });
      expect(rest.status).toBe(422);
      expect(await rest.json()).toMatchObject({
        detail: [{ type: 'value_error', loc: ['query', 'search'], msg: expect.stringMatching(/at most 10 search terms/) }],
      });
      const long = await fetch(`${server.url}/public/reports/?search=${'x'.repeat(101)}`, { headers: { 'x-api-key': key } });
      expect(long.status).toBe(422);
      const gql = await graphql(
        server,
        'query($s: String) { reports(search: $s) { total } }',
        { s: Array(4_000).fill('ab').join(' ') },
        key,
      );
      expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'search' });
      expect(server.queries.filter((q) => /LIKE/i.test(q))).toEqual([]);
      // Ten terms are fine.
      const ten = Array.from({ length: 10 }, (_, i) => `t${i}`).join(' ');
      expect(
        (await fetch(`${server.url}/public/reports/?search=${encodeURIComponent(ten)}`, { headers: { 'x-api-key': key } })).status,
      ).toBe(200);
    });

    it('bounds names, and the SMS once its placeholders are filled; nothing is created', async () => {
      const before = await countRows();
      const longName = await postLead({ name: 'N'.repeat(101), phone: '+33612345678', sendPhone: true });
      expect(longName.status).toBe(422);
      expect(JSON.stringify(await longName.json())).toMatch(/"name"/);
      const longFolder = await postLead({ name: 'x', folder_name: 'F'.repeat(101) });
      expect(longFolder.status).toBe(422);
      // 480 characters of template, each {name} filled with a 100-character name: far over the parts allowed.
      const custom_sms = '{name}'.repeat(80);
      const blownUp = await postLead({ name: 'N'.repeat(100), phone: '+33612345678', sendPhone: true, custom_sms });
      expect(blownUp.status).toBe(422);
      const body = (await blownUp.json()) as { detail: { loc: string[]; msg: string }[] };
      expect(body.detail[0]!.loc).toEqual(['body', 'custom_sms']);
      expect(body.detail[0]!.msg).toMatch(new RegExp(`at most ${MAX_SMS_SEGMENTS}`));
      expect(await countRows()).toEqual(before);
    });

    it('bounds the Idempotency-Key header (422, not a 500 from the index)', async () => {
      const before = await countRows();
      const huge = await postLead({ name: 'Key Client' }, { 'idempotency-key': randomUUID().repeat(100) });
      expect(huge.status).toBe(422);
      expect(await huge.json()).toMatchObject({ detail: [{ type: 'string_too_long', loc: ['header', 'idempotency-key'] }] });
      expect(await countRows()).toEqual(before);
      const fine = await postLead({ name: 'Key Client' }, { 'idempotency-key': 'k'.repeat(255) });
      expect(fine.status).toBe(201);
    });
  });
});

describe('keyless requests are throttled per client address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      reports: 5,
      config: { rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 3 } },
    });
    // The first organization's key, used once: in this process's key cache from now on.
    expect((await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[0]! } })).status).toBe(200);
  });
  afterAll(() => server.close());

  it('answers 429 once the address spent its keyless budget, without looking keys up', async () => {
    const keyless = () => fetch(`${server.url}/public/dealerships/`);
    const bogus = () => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': `vr_live_${'Q'.repeat(32)}` } });
    expect([(await keyless()).status, (await bogus()).status, (await graphql(server, '{ reports { total } }')).status]).toEqual([
      401, 401, 401,
    ]);
    server.resetQueryLog();
    const throttled = await bogus();
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await throttled.json()).toEqual({ detail: 'Rate limit exceeded' });
    const graphqlThrottled = await graphql(server, '{ reports { total } }');
    expect(graphqlThrottled.status).toBe(429);
    expect(graphqlThrottled.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    // The throttled attempts cost the database nothing: no key lookup.
    expect(server.queries.filter((q) => /api_keys/i.test(q))).toEqual([]);
  });

  it('N7: a key this process already knows is served from the same address meanwhile, without a lookup', async () => {
    const key = server.keys[0]!;
    // Known from an earlier request (the key cache); the address's keyless budget is spent above.
    expect((await fetch(`${server.url}/public/dealerships/`)).status).toBe(429);
    server.resetQueryLog();
    const tenant = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': key } });
    expect(tenant.status).toBe(200);
    expect((await graphql(server, '{ dealerships { total } }', {}, key)).status).toBe(200);
    expect(server.queries.filter((q) => /FROM api_keys WHERE digest/i.test(q))).toEqual([]);
    // A key it does not know is still refused unread.
    expect((await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[1]! } })).status).toBe(429);
  });
});

describe('repeated refusals are held before they are answered (REFUSAL_DELAY_MS)', () => {
  const HOLD_MS = 400;
  const servers: TestServer[] = [];
  // A dealerships page costs 2 points: with 2 a minute, one page and the budget is spent.
  const start = async (anonymousPerMinute: number) => {
    const server = await startTestServer('pglite', {
      reports: 5,
      config: { refusalDelayMs: HOLD_MS, rateLimits: { requestsPerMinute: 2, leadsPerMinute: 1_000, anonymousPerMinute } },
    });
    servers.push(server);
    return server;
  };
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  const timed = async (request: () => Promise<{ status: number }>) => {
    const started = performance.now();
    const { status } = await request();
    return { status, ms: performance.now() - started };
  };
  const get =
    (server: TestServer, headers: Record<string, string> = {}) =>
    () =>
      fetch(`${server.url}/public/dealerships/`, { headers });

  it('holds a wrong key, and the requests of an address whose keyless budget is spent', async () => {
    const server = await start(1);
    const wrongKey = await timed(get(server, { 'x-api-key': `vr_live_${'Q'.repeat(32)}` }));
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    const throttled = await timed(get(server));
    expect(throttled.status).toBe(429);
    expect(throttled.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    const throttledGraphql = await timed(() => graphql(server, '{ reports { total } }'));
    expect(throttledGraphql.status).toBe(429);
    expect(throttledGraphql.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
  });

  it('holds the refusals of a spent budget, REST and GraphQL, and serves another tenant meanwhile', async () => {
    const server = await start(1_000);
    const [spender, other] = [server.keys[0]!, server.keys[1]!];
    expect((await get(server, { 'x-api-key': spender })()).status).toBe(200);
    // The refusal that finds the budget spent is answered at once; the ones after it are held.
    expect((await get(server, { 'x-api-key': spender })()).status).toBe(429);
    const held = await timed(get(server, { 'x-api-key': spender }));
    expect(held.status).toBe(429);
    expect(held.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    const heldGraphql = await timed(() => graphql(server, '{ dealerships { total } }', {}, spender));
    expect(heldGraphql.status).toBe(429);
    expect(heldGraphql.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);

    // Twenty held refusals in flight do not hold the other tenant: it is answered first.
    const order: string[] = [];
    const refused = Array.from({ length: 20 }, () =>
      get(server, { 'x-api-key': spender })().then((r) => order.push(`refused ${r.status}`)),
    );
    const served = get(server, { 'x-api-key': other })().then((r) => order.push(`served ${r.status}`));
    await Promise.all([...refused, served]);
    expect(order[0]).toBe('served 200');
    expect(order.slice(1)).toEqual(Array.from({ length: 20 }, () => 'refused 429'));
  });
});

describe('TRUST_PROXY decides which address a keyless budget belongs to', () => {
  const servers: TestServer[] = [];
  const start = async (trustProxy: boolean | string) => {
    const server = await startTestServer('pglite', {
      reports: 1,
      config: { trustProxy, rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 2 } },
    });
    servers.push(server);
    return (forwardedFor: string) => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-forwarded-for': forwardedFor } });
  };
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('behind a trusted proxy, each forwarded client has its own budget', async () => {
    const keyless = await start('loopback');
    const first = [(await keyless('203.0.113.1')).status, (await keyless('203.0.113.1')).status, (await keyless('203.0.113.1')).status];
    expect(first).toEqual([401, 401, 429]);
    expect((await keyless('203.0.113.2')).status).toBe(401);
  });

  it('without one, X-Forwarded-For is ignored: a client cannot mint addresses to escape its budget', async () => {
    const keyless = await start(false);
    const statuses = [(await keyless('203.0.113.1')).status, (await keyless('203.0.113.2')).status, (await keyless('203.0.113.3')).status];
    expect(statuses).toEqual([401, 401, 429]);
  });
});

describe('a protocol error of the driver is not a database outage', () => {
  it('reports more bind parameters than the protocol counts (08P01 from PostgreSQL) as an error, not a 503', async () => {
    const { db, cleanup } = await createMigratedDatabase('postgres');
    try {
      // 70,000 parameters: the 16-bit count in the Bind message wraps and PostgreSQL refuses it.
      const values = Array.from({ length: 70_000 }, (_, i) => i);
      const placeholders = values.map((_, i) => `$${i + 1}::int`).join(',');
      const error = await db.prisma.$queryRawUnsafe(`SELECT 1 WHERE 0 IN (${placeholders})`, ...values).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error ?? {}))).toMatch(/08P01/);
      expect(databaseFailureOf(error)).toBeUndefined();
      // The pool is still usable: nothing was taken down.
      expect(await db.prisma.$queryRawUnsafe('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await cleanup();
    }
  });
});

describe('production settings', () => {
  it('never seeds demo data (nor prints keys) in production, and refuses to be told to', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).seedDemoData).toBe(false);
    expect(loadConfig({}).seedDemoData).toBe(true);
    expect(() => assertSafeToServe(loadConfig({ NODE_ENV: 'production', SEED_DEMO_DATA: 'true', METRICS_TOKEN: 't' }))).toThrow(
      /SEED_DEMO_DATA/,
    );
  });

  it('refuses a public /metrics in production: a token or an internal port is required', () => {
    expect(() => assertSafeToServe(loadConfig({ NODE_ENV: 'production' }))).toThrow(/METRICS_TOKEN or METRICS_PORT/);
    expect(() => assertSafeToServe(loadConfig({ NODE_ENV: 'production', METRICS_TOKEN: 'secret' }))).not.toThrow();
    expect(() => assertSafeToServe(loadConfig({ NODE_ENV: 'production', METRICS_PORT: '9464' }))).not.toThrow();
    expect(() => assertSafeToServe(loadConfig({ NODE_ENV: 'production', METRICS_ENABLED: 'false' }))).not.toThrow();
  });

  it('N9: NODE_ENV is read exactly: any case of production is production, an unknown value is refused at start-up', () => {
    for (const spelling of ['Production', 'PRODUCTION', ' production ']) {
      const config = loadConfig({ NODE_ENV: spelling });
      expect([spelling, config.nodeEnv, config.seedDemoData]).toEqual([spelling, 'production', false]);
      expect(() => assertSafeToServe(config)).toThrow(/METRICS_TOKEN or METRICS_PORT/);
    }
    for (const unknown of ['prod', 'staging', 'dev']) {
      expect(() => loadConfig({ NODE_ENV: unknown })).toThrow(`NODE_ENV="${unknown}" is not one of production, development, test`);
    }
    expect(loadConfig({ NODE_ENV: 'Test' }).nodeEnv).toBe('test');
    expect(loadConfig({}).nodeEnv).toBe('development');
  });

  it('N9: the internal metrics port listens on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadConfig({ METRICS_PORT: '9464', HOST: '0.0.0.0' }).metrics).toMatchObject({ port: 9464, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics.host).toBe('10.0.0.5');
  });
});
