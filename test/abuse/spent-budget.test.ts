/**
 * A spent budget costs nothing (issue 45, section 1), over real HTTP: once an organization's
 * budget (or a keyless address's) is spent, each further request is the same 429 with
 * Retry-After and the RateLimit headers, decided before its body is read past a small bound and
 * before anything parses or validates it: at most 3 ms of server CPU per request, whatever it
 * sends. The probe's reproducers: distinct documents of 2,000 `__typename` aliases (~35 kB), of
 * ~8,000 tokens, and 10,000 search terms; here with documents of growing size on both interfaces.
 *
 * The server runs in this process and the requests come from a child process: this process's
 * utime+stime over a batch, divided by its requests, is the server's CPU per refusal. Another
 * process on the machine (a test suite beside this one) can only add to it: the lowest of
 * BATCHES batches is the figure. On a busy 2-core machine (a whole `npm test`) it adds to every
 * batch, so each batch follows one of the same refusal for the smallest request (`{ __typename }`,
 * a short GET): the bound is 3 ms, or REFERENCE_FACTOR times what that smallest refusal cost when
 * the machine made even it dearer. A request that was parsed or validated costs many times the
 * smallest refusal, and fails either way.
 */
import { processCpuMs, startRequestSender, type RequestSender, type SentAnswer, type SentRequest } from '../support/request-sender';
import { startTestServer, type TestServer } from '../support/server';

/** The goal: server CPU per refused request, milliseconds. */
const MAX_CPU_MS_PER_REFUSAL = 3;
/** The budget of the organization and of a keyless address, in points (a cheap request is one). */
const BUDGET = 20;
/** Requests per measured batch: distinct documents, so that nothing the server keeps is reused. */
const BATCH = 24;
/**
 * Batches measured per case. In a whole `npm test` on a 2-core machine another worker's suite
 * often runs beside a batch, and only a batch run alone shows the server's own cost.
 */
const BATCHES = 6;
/** What a refusal may cost, at most, against the smallest refusal measured beside it. */
const REFERENCE_FACTOR = 1.5;

const aliases = (count: number, salt: string) => `{ ${Array.from({ length: count }, (_, i) => `${salt}${i}: __typename`).join(' ')} }`;
const searchTerms = (count: number, salt: string) => Array.from({ length: count }, (_, i) => `${salt}${i}`).join(' ');

/** The documents sent, each made distinct by `salt`; growing in size. */
const GRAPHQL_BODIES: [string, (salt: string) => string][] = [
  ['250 aliases (~4 kB)', (salt) => JSON.stringify({ query: aliases(250, salt) })],
  ['2,000 aliases (~35 kB, the probe)', (salt) => JSON.stringify({ query: aliases(2_000, salt) })],
  [
    '~8,000 tokens (the probe)',
    (salt) => JSON.stringify({ query: `query ${salt} { dealerships(limit: 1) { total } ${aliases(2_650, salt).slice(1)}` }),
  ],
  [
    '10,000 search terms (the probe)',
    (salt) => JSON.stringify({ query: 'query($s: String) { reports(search: $s) { total } }', variables: { s: searchTerms(10_000, salt) } }),
  ],
  ['5,300 aliases (~120 kB, past the body limit)', (salt) => JSON.stringify({ query: aliases(5_300, salt) })],
];

describe('a spent budget costs no parsing', () => {
  let server: TestServer;
  let sender: RequestSender;
  let key: string;
  let dealershipId: string;

  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 5,
      config: { rateLimits: { requestsPerMinute: BUDGET, leadsPerMinute: 100, anonymousPerMinute: BUDGET } },
    });
    sender = await startRequestSender(server.url);
    key = server.keys[0]!;
    dealershipId = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[0]!.id)!.id;
    // The refusal paths run once before anything is measured: their first run compiles them.
    await spend({ 'x-api-key': key });
    await (await sender.prepare(warmUp(key))).send();
  });
  afterAll(async () => {
    await sender?.close();
    await server?.close();
  });

  const warmUp = (apiKey: string): SentRequest[] =>
    Array.from({ length: BATCH }, (_, i) => ({
      path: i % 2 ? '/graphql' : '/public/reports/create-lead',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ query: aliases(100, `w${i}_`) }),
    }));

  /** Sends cheap requests until one is refused: the budget is then spent, and this instance knows it. */
  const spend = async (headers: Record<string, string>) => {
    for (let i = 0; i < 200; i += 1) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      await response.arrayBuffer();
      if (response.status === 429) return;
    }
    throw new Error('the budget was never spent');
  };

  /**
   * Server CPU per request (the lowest of BATCHES batches, `batch(n)` the n-th) sent from another
   * process, and all the answers; each batch after one of `reference(n)`, whose lowest is `referenceMs`.
   */
  const measure = async (batch: (n: number) => SentRequest[], reference: (n: number) => SentRequest[]) => {
    const answers: SentAnswer[] = [];
    let cpuMsPerRequest = Infinity;
    let referenceMs = Infinity;
    const cpuMsOf = async (requests: SentRequest[]) => {
      const prepared = await sender.prepare(requests);
      const before = processCpuMs();
      const sent = await prepared.send();
      return { sent, ms: (processCpuMs() - before) / requests.length };
    };
    for (let n = 0; n < BATCHES; n += 1) {
      const smallest = await cpuMsOf(reference(n));
      expect(smallest.sent.map((answer) => answer.status)).toEqual(smallest.sent.map(() => 429));
      referenceMs = Math.min(referenceMs, smallest.ms);
      const measured = await cpuMsOf(batch(n));
      answers.push(...measured.sent);
      cpuMsPerRequest = Math.min(cpuMsPerRequest, measured.ms);
    }
    return { answers, cpuMsPerRequest, referenceMs };
  };

  /** The bound: MAX_CPU_MS_PER_REFUSAL, or REFERENCE_FACTOR times the smallest refusal when the machine made that dearer. */
  const expectWithinBound = (figure: string, measured: { cpuMsPerRequest: number; referenceMs: number }) => {
    figures.push(`${figure}: ${measured.cpuMsPerRequest.toFixed(2)} (smallest refusal ${measured.referenceMs.toFixed(2)})`);
    expect(measured.cpuMsPerRequest).toBeLessThanOrEqual(Math.max(MAX_CPU_MS_PER_REFUSAL, REFERENCE_FACTOR * measured.referenceMs));
  };

  /** BATCH of the smallest GraphQL request, made distinct by `salt`, with `headers`. */
  const smallestGraphql = (headers: Record<string, string>, salt: string): SentRequest[] =>
    Array.from({ length: BATCH }, (_, i) => ({
      path: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: `{ ${salt}${i}: __typename }` }),
    }));

  /** The same 429 whatever was sent; `closed`: a body left unread (the connection closes: nothing more is read). */
  const expectRateLimited = (answers: SentAnswer[], policy: string, closed = false) => {
    for (const answer of answers) {
      expect(answer.status).toBe(429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(answer.headers['ratelimit-policy']).toBe(`"${policy}";q=${BUDGET};w=60`);
      expect(answer.headers.ratelimit).toMatch(new RegExp(`^"${policy}";r=0;t=\\d+$`));
      if (closed) expect(answer.headers.connection).toBe('close');
    }
  };

  const figures: string[] = [];
  afterAll(() =>
    console.log(
      `server CPU per refusal (ms), heap of this process ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB:\n${figures.join('\n')}`,
    ),
  );

  it('the request after the last point is refused before its body is read, not after its document is parsed', async () => {
    // Another organization, its budget untouched (and the keyless budget of this address too: a key
    // not yet known is looked up only while that one lasts): each request is allowed (one point: distinct
    // documents, never compiled), down to the last point.
    const other = server.keys[1]!;
    const send = (body: string) =>
      fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': other }, body });
    for (let i = 0; i < BUDGET; i += 1) {
      const response = await send(JSON.stringify({ query: `{ last${i}: __typename }` }));
      await response.arrayBuffer();
      expect(response.status).toBe(200);
    }
    // No refusal counted yet, but none is needed to know the next request's answer: a body past
    // the limit is refused for the budget, not read and refused for its size.
    const past = await send(JSON.stringify({ query: aliases(5_300, 'past') }));
    expect(past.status).toBe(429);
    expect(past.headers.get('connection')).toBe('close');
    const measured = await measure(
      (n) =>
        Array.from({ length: BATCH }, (_, i) => ({
          path: '/graphql',
          headers: { 'content-type': 'application/json', 'x-api-key': other },
          body: JSON.stringify({ query: aliases(2_000, `l${n}x${i}_`) }),
        })),
      (n) => smallestGraphql({ 'x-api-key': other }, `ls${n}x`),
    );
    expectRateLimited(measured.answers, 'requests');
    expectWithinBound('organization, GraphQL, after its last point', measured);
  });

  it.each(GRAPHQL_BODIES)('an organization past its budget: GraphQL, %s', async (label, body) => {
    await spend({ 'x-api-key': key });
    const measured = await measure(
      (n) =>
        Array.from({ length: BATCH }, (_, i) => ({
          path: '/graphql',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: body(`k${label.length}x${n}x${i}_`),
        })),
      (n) => smallestGraphql({ 'x-api-key': key }, `ks${label.length}x${n}x`),
    );
    expectRateLimited(measured.answers, 'requests', label.includes('past the body limit'));
    expect(JSON.parse(measured.answers[0]!.body)).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
    expectWithinBound(`organization, GraphQL, ${label}`, measured);
  });

  it.each(GRAPHQL_BODIES)('a keyless address past its budget: GraphQL, %s', async (label, body) => {
    await spend({});
    const measured = await measure(
      (n) =>
        Array.from({ length: BATCH }, (_, i) => ({
          path: '/graphql',
          headers: { 'content-type': 'application/json' },
          body: body(`a${label.length}x${n}x${i}_`),
        })),
      (n) => smallestGraphql({}, `as${label.length}x${n}x`),
    );
    expectRateLimited(measured.answers, 'anonymous', label.includes('past the body limit'));
    expectWithinBound(`keyless address, GraphQL, ${label}`, measured);
  });

  it('an organization past its budget: REST, 95 kB leads and 600 search terms (the longest query string)', async () => {
    await spend({ 'x-api-key': key });
    const requests = (n: number) =>
      Array.from({ length: BATCH }, (_, i): SentRequest =>
        i % 2 === 0
          ? {
              path: '/public/reports/create-lead',
              headers: { 'content-type': 'application/json', 'x-api-key': key },
              body: JSON.stringify({ dealership: dealershipId, name: 'x', notes: `${n}x${i}`.repeat(95_000 / `${n}x${i}`.length) }),
            }
          : {
              path: `/public/reports/?search=${encodeURIComponent(searchTerms(600, `r${n}x${i}_`))}`,
              method: 'GET',
              headers: { 'x-api-key': key },
            },
      );
    // The smallest: a lead without a body, a page without a search.
    const smallest = (n: number) =>
      Array.from({ length: BATCH }, (_, i): SentRequest =>
        i % 2 === 0
          ? { path: `/public/reports/create-lead?s=${n}x${i}`, headers: { 'x-api-key': key } }
          : { path: `/public/reports/?s=${n}x${i}`, method: 'GET', headers: { 'x-api-key': key } },
      );
    const measured = await measure(requests, smallest);
    expectRateLimited(measured.answers, 'requests');
    // A GET has no body left to read: its connection is kept.
    expect(measured.answers[1]!.headers.connection).not.toBe('close');
    expect(JSON.parse(measured.answers[0]!.body)).toMatchObject({ detail: expect.any(String) });
    expectWithinBound('organization, REST', measured);
  });
});
