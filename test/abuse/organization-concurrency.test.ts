/**
 * One tenant must not slow another (issue: abuse resistance), over real HTTP on both databases:
 * - at most ORG_CONCURRENT_REQUESTS requests of one organization in progress per instance, the
 *   excess in a short line, beyond it 429 in each interface's shape; other organizations served;
 * - a slot is released when its request's work ends, and a client leaving the line leaves no trace;
 * - an organization whose budget is spent is refused before its document is parsed;
 * - while the event loop is busy and another organization asked lately, one request at a time
 *   (ORG_CONCURRENT_REQUESTS_WHEN_BUSY).
 * How much this buys the other tenant is measured by `npm run bench:abuse` (docs/deploy.md), not here.
 */
import pg from 'pg';
import { createConcurrencyLimiter, type ConcurrencyLimiter } from '../../src/platform/rate-limit/concurrency-limiter';
import { createRateLimits, type RateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

const LIMIT = 2;

const postGraphql = (server: TestServer, key: string, query: string, signal?: AbortSignal) =>
  fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    signal,
  });

describe.each(['pglite', 'postgres'] as const)('requests of one organization in progress on %s', (kind) => {
  let server: TestServer;
  let slots: ConcurrencyLimiter;
  let busy: string;
  let other: string;
  const get = (key: string, path = '/public/dealerships/', signal?: AbortSignal) =>
    fetch(`${server.url}${path}`, { headers: { 'x-api-key': key }, signal });
  const usage = () => slots.usage(server.dataset.organizations[0]!.id);
  // What a slow request of the busy organization holds, taken here directly.
  const holdSlot = async () => {
    const slot = await slots.acquire(server.dataset.organizations[0]!.id);
    if (!slot.admitted) throw new Error('no slot');
    return slot;
  };

  beforeAll(async () => {
    slots = createConcurrencyLimiter({ limit: LIMIT, maxQueued: 1, maxWaitMs: 60_000 });
    server = await startTestServer(kind, { reports: 10, organizationSlots: slots });
    [busy, other] = [server.keys[0]!, server.keys[1]!];
  });
  afterAll(() => server.close());
  afterEach(() => expect(usage()).toEqual({ running: 0, queued: 0 }));

  it('runs at most N at once, lines up the next, refuses the rest in each shape, and serves another organization meanwhile', async () => {
    const held = [await holdSlot(), await holdSlot()];
    const waiting = get(busy);
    await waitFor(() => usage().queued === 1);

    const rest = await get(busy);
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(await rest.json()).toEqual({ detail: `Too many concurrent requests: at most ${LIMIT} of one organization at once` });
    const graphql = await postGraphql(server, busy, '{ dealerships { total } }');
    expect(graphql.status).toBe(429);
    expect(graphql.headers.get('retry-after')).toBe('1');
    const body = (await graphql.json()) as Record<string, unknown>;
    expect(body).toEqual({
      errors: [
        {
          message: `Too many concurrent requests: at most ${LIMIT} of one organization at once`,
          extensions: { code: 'RATE_LIMITED', retryAfter: 1, maximumConcurrentRequests: LIMIT },
        },
      ],
    });

    // The other organization does not wait for the busy one's slots.
    expect((await get(other)).status).toBe(200);
    expect((await postGraphql(server, other, '{ dealerships { total } }')).status).toBe(200);
    expect(usage()).toEqual({ running: LIMIT, queued: 1 });

    // A freed slot goes to the request in line, which is then served.
    held[0]!.release();
    expect((await waiting).status).toBe(200);
    await waitFor(() => usage().running === 1);
    held[1]!.release();
  });

  it('counts REST and GraphQL requests together, and frees every slot once answered', async () => {
    const answers = await Promise.all([
      get(busy),
      postGraphql(server, busy, '{ a: dealerships { total } b: users { total } }'),
      get(busy, '/public/reports/?limit=5'),
    ]);
    // Two at once, one in line: all served.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await waitFor(() => usage().running === 0);
  });

  it('takes a client that leaves the line out of it: no slot is spent on it', async () => {
    const held = [await holdSlot(), await holdSlot()];
    const client = new AbortController();
    const abandoned = get(busy, '/public/dealerships/', client.signal).catch((error: unknown) => error);
    await waitFor(() => usage().queued === 1);
    client.abort();
    expect(await abandoned).toMatchObject({ name: 'AbortError' });
    await waitFor(() => usage().queued === 0);
    for (const slot of held) slot.release();
    expect(usage()).toEqual({ running: 0, queued: 0 });
    expect((await get(busy)).status).toBe(200);
    await waitFor(() => usage().running === 0);
  });
});

describe('while the event loop is busy', () => {
  let server: TestServer;
  let slots: ConcurrencyLimiter;
  // The loop's load as the limiter sees it (platform/event-loop-load.ts measures the real one).
  let loopBusy = true;

  beforeAll(async () => {
    slots = createConcurrencyLimiter({ limit: LIMIT, maxQueued: 1, maxWaitMs: 60_000, whenBusy: 1 }, { busy: () => loopBusy });
    server = await startTestServer('pglite', { reports: 5, organizationSlots: slots });
  });
  afterAll(() => server.close());

  it('gives an organization its whole cap alone, one request at a time once another has asked, and all again when the loop is idle', async () => {
    const [busy, other] = [server.keys[0]!, server.keys[1]!];
    const organization = server.dataset.organizations[0]!.id;
    const usage = () => slots.usage(organization);
    const get = (key: string) => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': key } });
    const held = await slots.acquire(organization);
    if (!held.admitted) throw new Error('no slot');
    // Alone on a busy loop: its second request runs beside the one held.
    expect((await get(busy)).status).toBe(200);
    // Another organization asks: from now on the busy one has one slot, and its next request waits.
    expect((await get(other)).status).toBe(200);
    const waiting = get(busy);
    await waitFor(() => usage().queued === 1);
    expect(usage()).toEqual({ running: 1, queued: 1 });
    // The loop is idle again: the next request of the busy organization is not held back by the cap,
    // and (first come, first served) the one in line starts first.
    loopBusy = false;
    const next = get(busy);
    expect((await waiting).status).toBe(200);
    expect((await next).status).toBe(200);
    held.release();
    await waitFor(() => usage().running === 0 && usage().queued === 0);
  });
});

describe('slow requests on PostgreSQL (a lock holds them)', () => {
  let server: TestServer;
  let slots: ConcurrencyLimiter;
  let locker: pg.Client;
  const usage = () => slots.usage(server.dataset.organizations[0]!.id);

  beforeAll(async () => {
    slots = createConcurrencyLimiter({ limit: LIMIT, maxQueued: 1, maxWaitMs: 60_000 });
    server = await startTestServer('postgres', { reports: 10, organizationSlots: slots });
    locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
  });
  afterAll(async () => {
    await locker.end();
    await server.close();
  });

  it('holds N slots while the statements wait, keeps a disconnected client’s slot until its work ends, then frees all', async () => {
    const [busy, other] = [server.keys[0]!, server.keys[1]!];
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE dealerships IN ACCESS EXCLUSIVE MODE');
    const disconnecting = new AbortController();
    const aborted = fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': busy }, signal: disconnecting.signal }).catch(
      (error: unknown) => error,
    );
    await waitFor(() => usage().running === 1);
    // One at a time, so that which is running and which waits in line is known.
    const slow = [postGraphql(server, busy, '{ dealerships { total } }')];
    await waitFor(() => usage().running === LIMIT);
    slow.push(fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': busy } }));
    await waitFor(() => usage().queued === 1);
    // Past the line: refused at once, while the others wait on the lock.
    expect((await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': busy } })).status).toBe(429);
    // Another organization reading what is not locked is served.
    const served = await fetch(`${server.url}/public/reports/?limit=5`, { headers: { 'x-api-key': other } });
    expect(served.status).toBe(200);

    disconnecting.abort();
    expect(await aborted).toMatchObject({ name: 'AbortError' });
    // Its statement still waits on the lock: the slot stays taken, or aborting would be a way round the cap.
    expect(usage()).toEqual({ running: LIMIT, queued: 1 });

    await locker.query('COMMIT');
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    await waitFor(() => usage().running === 0 && usage().queued === 0);
  });
});

describe('an organization whose budget is spent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      reports: 5,
      config: { rateLimits: { requestsPerMinute: 4, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 } },
    });
  });
  afterAll(() => server.close());

  it('is refused before its document is parsed or its key looked up, with the budget’s headers; another organization is not', async () => {
    const [spent, other] = [server.keys[0]!, server.keys[1]!];
    const list = (key: string) => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': key } });
    // A page of dealerships is two points: the third is over the budget of four.
    expect([(await list(spent)).status, (await list(spent)).status, (await list(spent)).status]).toEqual([200, 200, 429]);
    // A document that does not parse: a parse error (400) if it were parsed, a 429 because it is not.
    const unparsed = await postGraphql(server, spent, '{ reports(');
    expect(unparsed.status).toBe(429);
    expect(Number(unparsed.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(unparsed.headers.get('ratelimit')).toMatch(/^"requests";r=0;t=\d+$/);
    expect(((await unparsed.json()) as { errors: { extensions: unknown }[] }).errors[0]!.extensions).toMatchObject({
      code: 'RATE_LIMITED',
    });
    // Nor is its key looked up again (it is in the key cache): a 429 costs no SQL.
    server.resetQueryLog();
    const rest = await list(spent);
    expect(rest.status).toBe(429);
    expect(await rest.json()).toEqual({ detail: 'Rate limit exceeded' });
    expect(server.queries).toEqual([]);
    expect((await postGraphql(server, other, '{ reports(')).status).toBe(400);
    expect((await list(other)).status).toBe(200);
  });
});

describe('an organization whose budget is spent while its request waits for a slot', () => {
  let server: TestServer;
  let slots: ConcurrencyLimiter;
  let rateLimits: RateLimits;
  beforeAll(async () => {
    slots = createConcurrencyLimiter({ limit: 1, maxQueued: 1, maxWaitMs: 60_000 });
    rateLimits = createRateLimits({ requestsPerMinute: 4, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 });
    server = await startTestServer('postgres', { reports: 5, rateLimits, organizationSlots: slots });
  });
  afterAll(async () => {
    await server.close();
    await rateLimits.close();
  });

  it('a request that waited for a slot while the requests ahead of it spent the budget is refused when its turn comes, before its document is parsed', async () => {
    const [organization, key] = [server.dataset.organizations[0]!.id, server.keys[0]!];
    // The request ahead of it, in progress: it holds the organization's one slot.
    const ahead = await slots.acquire(organization);
    if (!ahead.admitted) throw new Error('no slot');
    const waiting = postGraphql(server, key, '{ reports(');
    await waitFor(() => slots.usage(organization).queued === 1);
    // The request ahead pays the budget's last points while the other waits.
    expect((await rateLimits.requests.consume(organization, 4)).allowed).toBe(true);
    ahead.release();
    // A parse error (400) had it been parsed once admitted.
    const answer = await waiting;
    expect(answer.status).toBe(429);
    expect(((await answer.json()) as { errors: { extensions: unknown }[] }).errors[0]!.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(slots.usage(organization)).toEqual({ running: 0, queued: 0 });
  });
});
