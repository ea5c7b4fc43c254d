/**
 * Cost follows work (issue 22, N1 and N3-N5), over real HTTP on both databases: what a request
 * is charged and allowed depends on the work it causes, not on the text it sends.
 * - N1: fragments that expand to tens of thousands of fields are refused before anything walks
 *   them, with or without a key; introspection costs the answer it builds;
 * - N3: a price kept for `{"n": null}` is not reused for `{}` (the default then applies);
 * - N4: introspection is charged by the size of its answer;
 * - N5: a document refused at parse, validation or limits is charged by its length or the work of refusing it (1 point a millisecond), whichever is more;
 * - keyless requests share one set of slots.
 */
import { getIntrospectionQuery } from 'graphql';
import { KEYLESS_SLOTS } from '../../src/api/request-context';
import { createConcurrencyLimiter, type ConcurrencyLimiter } from '../../src/platform/rate-limit/concurrency-limiter';
import { graphql, startTestServer, type TestServer } from '../support/server';

const repeat = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join(' ');

/** The outside attacker's document: 592 tokens, 1,528 characters; its answer was 319 MB. */
const N1 =
  `{__schema{${repeat(25, (i) => `t${i}:types{...T}`)}}} ` +
  `fragment T on __Type{${repeat(25, (i) => `f${i}:fields{...F}`)}} ` +
  `fragment F on __Field{${repeat(75, (i) => `n${i}:name`)}}`;

/** Six levels of fragments, each spreading the next ten times: 10^6 fields from 1 kB. */
const nestedFragments = (root: string, leaf: string) => {
  const levels = 6;
  const fragments = Array.from({ length: levels }, (_, level) =>
    level === levels - 1
      ? `fragment L${level} on __Type { ${leaf} }`
      : `fragment L${level} on __Type { ${repeat(10, (i) => `a${i}: ofType { ...L${level + 1} }`)} }`,
  );
  return `{ ${root} { ...L0 } } ${fragments.join(' ')}`;
};

describe.each(['pglite', 'postgres'] as const)('cost follows work on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let slots: ConcurrencyLimiter;

  beforeAll(async () => {
    slots = createConcurrencyLimiter({ limit: 2, maxQueued: 0, maxWaitMs: 1_000 });
    server = await startTestServer(kind, {
      reports: 20,
      organizationSlots: slots,
      config: { rateLimits: { requestsPerMinute: 100_000, leadsPerMinute: 100, anonymousPerMinute: 1_000_000 } },
    });
    key = server.keys[0]!;
  });
  afterAll(() => server.close());

  const post = async (query: string, apiKey: string | undefined, variables?: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    return {
      status: response.status,
      bytes: text.length,
      body: JSON.parse(text) as { data?: unknown; errors?: { message: string; extensions: Record<string, unknown> }[] },
      headers: response.headers,
    };
  };

  /** Points left in the key's budget, read from the RateLimit header of a 1-point request. */
  const remaining = async () => {
    const { headers } = await post('{ __typename }', key);
    return Number(/;r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);
  };
  /** Points a request was charged: the budget before and after it, less the 1-point probe. */
  const charged = async (send: () => Promise<unknown>) => {
    const before = await remaining();
    await send();
    return before - (await remaining()) - 1;
  };

  describe('N1: fragments expanding to a huge selection', () => {
    it.each([
      ['without a key', undefined],
      ['with a key', 'key'],
    ])('the outside finding is refused at validation %s, with the expanded size named', async (_label, withKey) => {
      const answer = await post(N1, withKey ? key : undefined);
      expect(answer.status).toBe(400);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/^The query selects 47526 fields once its fragments are expanded; at most 10000/),
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', expandedFields: 47_526, maximumExpandedFields: 10_000 },
      });
    });

    it('without a key it is refused before Apollo validates it, in the very words Apollo uses with a key', async () => {
      const keyless = await post(N1, undefined);
      const keyed = await post(N1, key);
      expect(keyless.status).toBe(keyed.status);
      expect(keyless.body).toEqual(keyed.body);
      expect(keyless.headers.get('content-type')).toBe(keyed.headers.get('content-type'));
    });

    it('nested fragments (a million fields from 1 kB) are refused without being walked, introspection or data', async () => {
      const introspection = await post(nestedFragments('__type(name: "Report")', 'name'), undefined);
      expect(introspection.status).toBe(400);
      expect(introspection.body.errors?.[0]?.extensions).toMatchObject({ maximumExpandedFields: 10_000 });
      const data = nestedFragments('__type(name: "Report")', 'name').replace(
        '__type(name: "Report") { ...L0 }',
        'a: __type(name: "Report") { ...L0 }',
      );
      expect((await post(data, key)).status).toBe(400);
    });

    it('introspection is priced by its answer: ten copies of the types list (~28,000 values) are too much without a key, fine with one', async () => {
      const tenCopies = `{ __schema { ${repeat(10, (i) => `t${i}: types { name fields { name args { name } type { name ofType { name } } } }`)} } }`;
      const keyless = await post(tenCopies, undefined);
      expect(keyless.status).toBe(400);
      expect(keyless.body.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/^Query cost \d+ exceeds the maximum of 20000 without an API key/),
        extensions: { code: 'QUERY_TOO_COMPLEX', maximumCost: 20_000 },
      });
      expect(keyless.body.errors?.[0]?.extensions.cost as number).toBeGreaterThan(20_000);
      const keyed = await post(tenCopies, key);
      expect(keyed.status).toBe(200);
      // GraphiQL's own introspection query still works without a key.
      expect((await post(getIntrospectionQuery(), undefined)).status).toBe(200);
    });
  });

  it('N3: a price kept for an explicit null is not reused when the variable is omitted (its default applies)', async () => {
    const query =
      'query($n: Int = 1000) { a0: reports(limit: $n) { items { token dealership { reports(limit: $n) { items { token } } } } } }';
    await post(query, key, { n: null });
    const omitted = await post(query, key, {});
    expect(omitted.status).toBe(400);
    expect(omitted.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maximumCost: 50_000 });
    expect(omitted.bytes).toBeLessThan(1_000);
  });

  it('N1 refused is charged by the selection it asked for (a point per 1,000 fields), though its 1,528 characters are under a point', async () => {
    const points = await charged(async () => expect((await post(N1, key)).status).toBe(400));
    expect(N1.length).toBeLessThan(2_000);
    expect(points).toBeGreaterThanOrEqual(Math.ceil(47_526 / 1_000));
    // However much more a document asks for, its refusal costs at most 100 points for that.
    const huge = nestedFragments('__type(name: "Report")', 'name');
    expect(await charged(async () => expect((await post(huge, key)).status).toBe(400))).toBeLessThanOrEqual(110);
  });

  it('N4: introspection is charged by the size of its answer (the standard query: 6 points)', async () => {
    expect(await charged(() => post(getIntrospectionQuery(), key))).toBeGreaterThanOrEqual(6);
    expect(await charged(() => post('{ __schema { queryType { name } } }', key))).toBe(1);
  });

  it('N5: documents refused at parse, validation or limits are charged by their length', async () => {
    const padding = repeat(2_000, (i) => `f${i}: __typename`);
    const unknownField = `{ ${padding} noSuchField }`; // ~40 kB, fails validation
    expect(unknownField.length).toBeGreaterThan(30_000);
    expect(await charged(async () => expect((await post(unknownField, key)).status).toBe(400))).toBeGreaterThanOrEqual(15);
    const unparsable = `{ ${padding} `;
    expect(await charged(async () => expect((await post(unparsable, key)).status).toBe(400))).toBeGreaterThanOrEqual(15);
    const tooWide = `{ ${repeat(30, (i) => `r${i}: dealerships(limit: 1) { total }`)} ${repeat(600, (i) => `t${i}: __typename`)} }`;
    expect(await charged(async () => expect((await post(tooWide, key)).status).toBe(400))).toBeGreaterThanOrEqual(
      Math.floor(tooWide.length / 2_000),
    );
  });

  it('keyless requests share one set of slots: when it is taken, a keyless request waits its turn or gets a 429', async () => {
    const held = [await slots.acquire(KEYLESS_SLOTS), await slots.acquire(KEYLESS_SLOTS)];
    try {
      const refused = await post('{ __schema { queryType { name } } }', undefined);
      expect(refused.status).toBe(429);
      // A tenant is not affected.
      expect((await post('{ dealerships(limit: 1) { total } }', key)).status).toBe(200);
    } finally {
      for (const slot of held) if (slot.admitted) slot.release();
    }
    expect((await post('{ __schema { queryType { name } } }', undefined)).status).toBe(200);
  });
});

describe('N1 without a key, on a keyless budget of 60 points a minute', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      reports: 1,
      config: { rateLimits: { requestsPerMinute: 100_000, leadsPerMinute: 100, anonymousPerMinute: 60 } },
    });
  });
  afterAll(() => server.close());

  it('spends most of the address’s minute with one refusal: the third attempt is refused for the budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await graphql(server, N1)).status);
    // 1 point to come in and 48 for the 47,526 fields asked: the second overdraws the 60.
    expect(statuses).toEqual([400, 400, 429]);
  });
});
