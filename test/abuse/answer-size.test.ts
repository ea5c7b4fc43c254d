/**
 * Bound the answer (issue 22): pricing counts what a document names, but a report's lists and JSON
 * values are as long as the inspection app wrote them, and one JSON value may be selected under
 * many aliases. An answer that passes MAX_ANSWER_VALUES while it is built is refused whole (one
 * QUERY_TOO_COMPLEX, no data) on both executors and both interfaces; the widest legitimate
 * answers fit. Over real HTTP, on both databases.
 */
import { DEFAULT_MAX_ANSWER_VALUES } from '../../src/shared/answer-budget';
import { startTestServer, type TestServer } from '../support/server';

/** Damages as an inspection could record them: 4 members each, 5 values with the object. */
const DAMAGES = 5_000;
const damages = Array.from({ length: DAMAGES }, (_, i) => ({ zone: `zone-${i}`, kind: 'scratch', cost: i, photo: null }));
const VALUES_OF_DAMAGES = 1 + DAMAGES * 5;

const aliases = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

describe.each(['pglite', 'postgres'] as const)('answers are bounded while they are built, on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
    key = server.keys[0]!;
    const organizationId = server.dataset.organizations[0]!.id;
    const report = await server.db.prisma.report.findFirstOrThrow({ where: { organization_id: organizationId }, select: { token: true } });
    token = report.token;
    // Written as the inspection app writes: plain SQL.
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE reports SET data = jsonb_set(data, '{vehicle,damages}', $1::jsonb) WHERE token = $2::uuid`,
      JSON.stringify(damages),
      token,
    );
  });
  afterAll(() => server.close());

  const post = async (query: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
      body: JSON.stringify({ query }),
    });
    const text = await response.text();
    return {
      status: response.status,
      bytes: text.length,
      body: JSON.parse(text) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] },
    };
  };

  it('answers a long list once, in full', async () => {
    const answer = await post(`{ report(report_id: "${token}") { data { vehicle { damages } } } }`);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect((answer.body.data as { report: { data: { vehicle: { damages: unknown[] } } } }).report.data.vehicle.damages).toHaveLength(
      DAMAGES,
    );
  });

  it('refuses an answer that passes the maximum while it is built: one error, no data', async () => {
    // 30 aliases of the same 25,001 values: 750,030 values, priced as 30 (each alias counts 1).
    const wide = `{ report(report_id: "${token}") { data { vehicle { ${aliases(30, 'damages')} } } } }`;
    expect(30 * VALUES_OF_DAMAGES).toBeGreaterThan(DEFAULT_MAX_ANSWER_VALUES);
    // Sent twice: the second sighting runs compiled (graphql-jit), the first on graphql-js.
    for (const run of ['graphql-js', 'compiled']) {
      const answer = await post(wide);
      expect({ run, status: answer.status, data: answer.body.data }).toEqual({ run, status: 200, data: null });
      expect(answer.body.errors).toEqual([
        {
          message: `The answer would hold more than ${DEFAULT_MAX_ANSWER_VALUES} values: lower the limits or select fewer fields`,
          extensions: { code: 'QUERY_TOO_COMPLEX', maximumAnswerValues: DEFAULT_MAX_ANSWER_VALUES },
        },
      ]);
      // What it would have been: ~30 x 250 kB.
      expect(answer.bytes).toBeLessThan(1_000);
    }
  });

  it('fits the widest legitimate answers: the long report fetched whole, a REST page of 100', async () => {
    const one = await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': key } });
    expect(one.status).toBe(200);
    const page = await fetch(`${server.url}/public/reports/?limit=100`, { headers: { 'x-api-key': key } });
    expect(page.status).toBe(200);
  });
});

describe.each(['pglite', 'postgres'] as const)('a small MAX_ANSWER_VALUES, on %s', (kind) => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 200, config: { maxAnswerValues: 1_000 } });
    key = server.keys[0]!;
  });
  afterAll(() => server.close());

  it('counts the items of typed lists by what each selects', async () => {
    const post = async (query: string) => {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query }),
      });
      return {
        status: response.status,
        body: (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] },
      };
    };
    // The first demo organization holds ~80 of the 200 reports: 80 x 3 values fit, 80 x 60 do not.
    const small = await post('{ reports(limit: 100) { items { token type valid } } }');
    expect(small.body.errors).toBeUndefined();
    const large = await post(`{ reports(limit: 100) { items { ${aliases(60, 'token')} } } }`);
    expect(large.status).toBe(200);
    expect(large.body.data).toBeNull();
    expect(large.body.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('answers the REST interface with its 400', async () => {
    const response = await fetch(`${server.url}/public/reports/?limit=100`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      detail: 'The answer would hold more than 1000 values: lower the limits or select fewer fields',
    });
  });
});
