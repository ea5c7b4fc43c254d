/**
 * A GraphQL `report` query answered from its kept answer before Apollo runs
 * (api/graphql/kept-answers-first.ts), over real HTTP on both databases. The oracle is Apollo
 * itself: a second app on the same database with the shortcut off (GRAPHQL_KEPT_ANSWERS_FIRST
 * false), sent every request the first one is sent; status, headers (but the clock's) and body
 * must be equal, for a seeded random choice of documents, operation names, variables, Accept
 * headers and body shapes, and through a rate limit that runs out. The shortcut is seen to answer
 * (its counter) where it may, and a report it looked up without finding a kept body is not
 * looked up again by Apollo.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { parse, print, type FieldNode, type OperationDefinitionNode } from 'graphql';
import pg from 'pg';
import type { AppConfig } from '../../src/app/config';
import { createApp } from '../../src/app/create-app';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { KeptAnswersFirst, MAX_TEXTS_PER_ORGANIZATION, TOTAL_BYTES } from '../../src/api/graphql/kept-answers-first';
import type { ApiServices } from '../../src/api/request-context';
import { reportRouteSelection } from '../../src/api/stored-answers';
import { createHttpServer } from '../../src/platform/http/http-server';
import { SeededRandom } from '../../src/seed/vehicles';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

interface Sent {
  /** the body as sent: an object is written as JSON */
  body: unknown;
  headers?: Record<string, string>;
  key?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Headers that differ between two apps for reasons of their own: the clock, the request's id, the connection. */
const OWN_HEADERS = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

async function serve(config: AppConfig, db: TestServer['db']): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createHttpServer(await createApp({ db, config }), { requestTimeoutMs: config.requestTimeoutMs });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe.each(DATABASE_KINDS)('GraphQL report answers served before Apollo on %s', (kind) => {
  let server: TestServer;
  let oracle: { url: string; close(): Promise<void> };
  let key: string;
  let organizationId: string;
  let selection: string;
  /** Runs one statement as another client would (a second connection where there can be one); its rows. */
  let sql: (text: string, values?: unknown[]) => Promise<unknown[]>;
  let closeClient: () => Promise<void> = async () => undefined;
  const closing: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 60 });
    key = server.keys[0]!;
    organizationId = server.dataset.organizations[0]!.id;
    selection = print(reportRouteSelection(await buildAppSchema()));
    oracle = await serve({ ...server.config, graphqlKeptAnswersFirst: false }, server.db);
    closing.push(oracle);
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      sql = async (text, values = []) => (await client.query(text, values)).rows as unknown[];
      closeClient = () => client.end();
    } else {
      sql = (text, values = []) => server.db.prisma.$queryRawUnsafe<unknown[]>(text, ...values);
    }
  }, 120_000);
  afterAll(async () => {
    await closeClient();
    await Promise.all(closing.map((c) => c.close()));
    await server.close();
  });

  const send = async (url: string, sent: Sent): Promise<Answer> => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sent.key ?? key, ...sent.headers },
      body: typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (OWN_HEADERS.has(name)) return;
      // The window's seconds left (t=) and Retry-After follow each app's own clock.
      headers[name] = name === 'ratelimit' ? value.replace(/;t=\d+/, ';t=?') : name === 'retry-after' ? '?' : value;
    });
    // A refusal's retryAfter, in its body, follows the clock too.
    return { status: response.status, headers, text: (await response.text()).replace(/"retryAfter":\d+/, '"retryAfter":"?"') };
  };
  /** The budget left (r=) of an app that was sent other requests too (REST's, to keep answers). */
  const withoutBudget = (answer: Answer): Answer => ({
    ...answer,
    headers: { ...answer.headers, ...(answer.headers.ratelimit && { ratelimit: answer.headers.ratelimit.replace(/;r=\d+/, ';r=?') }) },
  });
  /**
   * Sends the request to Apollo (the oracle), then to the app under test: both answers must be
   * equal; the budget left too when both apps were sent the same requests (`urls`).
   */
  const both = async (sent: Sent, urls?: { oracle: string; tested: string }): Promise<Answer> => {
    const expected = await send(urls?.oracle ?? oracle.url, sent);
    const actual = await send(urls?.tested ?? server.url, sent);
    if (urls) expect({ sent, answer: actual }).toEqual({ sent, answer: expected });
    else expect({ sent, answer: withoutBudget(actual) }).toEqual({ sent, answer: withoutBudget(expected) });
    return withoutBudget(actual);
  };
  const answeredFirst = async (url = server.url): Promise<number> => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('vr_graphql_kept_answers_first_total '));
    return Number(line?.split(' ')[1] ?? 0);
  };
  const tokens = () => server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);
  /** Has the report's answer kept: REST builds it twice, the second build keeps it. */
  const keep = async (token: string, apiKey = key) => {
    for (let i = 0; i < 2; i++) await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': apiKey } });
    await waitFor(
      async () =>
        (
          await sql(
            `SELECT 1 FROM report_answers a JOIN reports r USING (token) WHERE a.token = $1::uuid AND a.row_version = r.xmin::text::bigint`,
            [token],
          )
        ).length > 0 || undefined,
    );
  };
  const reportQuery = (alias = '') => `query ($id: UUID!) { ${alias}report(report_id: $id) ${selection} }`;

  it('answers a document Apollo ran before from the kept body, as Apollo does, and counts it', async () => {
    const token = tokens()[0]!;
    await keep(token);
    const before = await answeredFirst();
    const sent = { body: { query: reportQuery(), variables: { id: token } } };
    const first = await both(sent);
    expect(first.status).toBe(200);
    expect(first.text.startsWith(`{"data":{"report":{"token":"${token}"`)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await both(sent)).toEqual(first);
    // the first was Apollo's (and taught the shortcut the text), the next three were not
    expect((await answeredFirst()) - before).toBe(3);
    // what is served is what the table holds
    await sql(`UPDATE report_answers SET body = '{"kept":true}' WHERE token = $1::uuid`, [token]);
    expect((await both(sent)).text).toBe('{"data":{"report":{"kept":true}}}\n');
    expect((await answeredFirst()) - before).toBe(4);
  });

  it('generated requests: documents, operation names, variables, Accept headers and body shapes, 160 of them', async () => {
    const random = new SeededRandom(Number(process.env.FUZZ_SEED) || 27);
    const all = tokens().slice(1, 6);
    for (const token of all) await keep(token);
    const foreignToken = server.dataset.reports.find((r) => r.organization_id !== organizationId)!.token;
    const pick = <T>(values: readonly T[]): T => values[random.int(0, values.length - 1)]!;
    const documents: { query: (token: string) => string; name?: string }[] = [
      { query: () => reportQuery() },
      { query: () => reportQuery('full: ') },
      { query: () => `\n  query Full($id: UUID!) {\n  report(report_id: $id) ${selection}\n}\n`, name: 'Full' },
      { query: () => `query Full($id: UUID!) { report(report_id: $id) ${selection} } query Other { __typename }`, name: 'Full' },
      { query: () => `query Full($id: UUID!) { report(report_id: $id) ${selection} } query Other { __typename }`, name: 'Other' },
      { query: (token) => `{ report(report_id: "${token}") ${selection} }` },
      { query: () => `query ($id: UUID! = "${all[0]}") { report(report_id: $id) ${selection} }` },
      { query: () => `query ($id: UUID!, $unused: Int) { report(report_id: $id) ${selection} }` },
      // not the full report: Apollo answers these, whatever is sent
      { query: () => `query ($id: UUID!) { report(report_id: $id) ${selection} __typename }` },
      { query: () => `query ($id: UUID!) { report(report_id: $id) { token } }` },
    ];
    const operationNames = (name: string | undefined) => [undefined, null, name, '', 'Nope', 7] as const;
    const ids = (token: string) =>
      [token, token.toUpperCase(), undefined, null, 'not-a-uuid', 42, foreignToken, '00000000-0000-4000-8000-000000000000'] as const;
    const accepts = [
      undefined,
      '*/*',
      'application/json',
      'application/graphql-response+json',
      'application/graphql-response+json, application/json;q=0.9',
      'application/graphql-response+json;q=0.2, application/json',
      'text/html;q=0.9, */*;q=0.1',
      'application/xml',
      'application/json;q=0',
      'multipart/mixed; deferSpec=20220824, application/json',
    ];
    const bodyShapes = [
      (body: Record<string, unknown>) => body,
      (body: Record<string, unknown>) => ({ ...body, extensions: {} }),
      (body: Record<string, unknown>) => ({ ...body, extensions: null }),
      (body: Record<string, unknown>) => ({ ...body, variables: JSON.stringify(body.variables ?? {}) }),
      (body: Record<string, unknown>) => ({ ...body, variables: [body.variables] }),
      (body: Record<string, unknown>) => ({ ...body, variables: { ...(body.variables as object), extra: 'ignored' } }),
      (body: Record<string, unknown>) => [body],
    ];
    const extraHeaders: Record<string, string>[] = [{}, {}, {}, { 'idempotency-key': 'kept-answers-first-1' }, { 'idempotency-key': '' }];
    const before = await answeredFirst();
    for (let i = 0; i < 160; i++) {
      const token = pick(all);
      const document = pick(documents);
      const body: Record<string, unknown> = { query: document.query(token) };
      const name = random.int(0, 2) > 0 ? document.name : pick(operationNames(document.name));
      if (name !== undefined) body.operationName = name;
      const id = random.int(0, 2) > 0 ? token : pick(ids(token));
      if (id !== undefined) body.variables = { id };
      const shape = random.int(0, 2) > 0 ? bodyShapes[0]! : pick(bodyShapes);
      const accept = pick(accepts);
      const headers: Record<string, string> = { ...pick(extraHeaders), ...(accept === undefined ? {} : { accept }) };
      // Twice: the second is the shortcut's to answer when it may.
      for (let round = 0; round < 2; round++) await both({ body: shape(body), headers });
    }
    // Many requests could not be answered first; a share could (~14 % of them: ~22 expected, 8 is 3 deviations under).
    expect((await answeredFirst()) - before).toBeGreaterThan(8);
  });

  it('a report without a kept body: Apollo answers it from the shortcut’s one lookup, then keeps it for both', async () => {
    const token = tokens()[7]!;
    await keep(token);
    const sent = { body: { query: reportQuery(), variables: { id: token } } };
    await both(sent);
    // a write: the kept body is no longer current
    await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
    const before = await answeredFirst();
    server.resetQueryLog();
    const built = withoutBudget(await send(server.url, sent));
    const lookups = server.queries.filter((q) => q.includes('LEFT JOIN report_answers')).length;
    expect(lookups).toBe(1);
    expect(await answeredFirst()).toBe(before);
    // the oracle's build is the second of this row version (both apps share the kept answers): it keeps it
    expect(withoutBudget(await send(oracle.url, sent))).toEqual(built);
    await keep(token);
    const served = await answeredFirst();
    expect(await both(sent)).toEqual(built);
    expect(await answeredFirst()).toBe(served + 1);
  });

  it('charges the budget as Apollo does: the same remaining points, the same refusal', async () => {
    // No compilation: graphql-jit charges one point when it compiles a document, on its second
    // execution, and which app executes it when depends on when a body built twice is kept.
    const config: AppConfig = {
      ...server.config,
      rateLimits: { ...server.config.rateLimits, requestsPerMinute: 40 },
      compileMsPerMinute: { organization: 0, total: 0 },
    };
    const tested = await serve(config, server.db);
    const apollo = await serve({ ...config, graphqlKeptAnswersFirst: false }, server.db);
    closing.push(tested, apollo);
    const token = tokens()[8]!;
    await keep(token);
    const sent = { body: { query: reportQuery(), variables: { id: token } } };
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) {
      // Every fifth request finds no kept body (a write): the shortcut charged it, Apollo answers it.
      if (i % 5 === 4) await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
      statuses.push((await both(sent, { oracle: apollo.url, tested: tested.url })).status);
    }
    expect(statuses).toContain(429);
    expect(statuses.indexOf(429)).toBeGreaterThan(5);
    expect(await answeredFirst(tested.url)).toBeGreaterThan(5);
    expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
  });

  it('remembers at most its bounds: texts per organization, bytes in all, long texts not at all', async () => {
    const token = tokens()[9]!;
    await keep(token);
    const variant = (n: number) => ({ body: { query: `${reportQuery()}${' '.repeat(n)}`, variables: { id: token } } });
    // another organization's text, remembered first
    const otherKey = server.keys[1]!;
    const otherToken = server.dataset.reports.find((r) => r.organization_id === server.dataset.organizations[1]!.id)!.token;
    await keep(otherToken, otherKey);
    const otherSent = { body: { query: reportQuery(), variables: { id: otherToken } }, key: otherKey };
    await send(server.url, otherSent);
    for (let i = 0; i < 4; i++) await send(server.url, otherSent);
    // this organization sends more texts than it may have remembered: its first is forgotten
    for (let n = 1; n <= MAX_TEXTS_PER_ORGANIZATION + 1; n++) await send(server.url, variant(n));
    let before = await answeredFirst();
    await send(server.url, variant(1));
    expect(await answeredFirst()).toBe(before);
    before = await answeredFirst();
    await send(server.url, variant(MAX_TEXTS_PER_ORGANIZATION + 1));
    expect(await answeredFirst()).toBe(before + 1);
    // and the other organization's is still served first
    before = await answeredFirst();
    expect((await send(server.url, otherSent)).status).toBe(200);
    expect(await answeredFirst()).toBe(before + 1);
    // a text past MAX_TEXT_CHARACTERS is never remembered
    const long = { body: { query: `${reportQuery()}#${'x'.repeat(40_000)}`, variables: { id: token } } };
    before = await answeredFirst();
    for (let i = 0; i < 3; i++) await both(long);
    expect(await answeredFirst()).toBe(before);

    // The total, with more organizations than the dataset holds: the recognizer itself.
    const schema = await buildAppSchema();
    const first = new KeptAnswersFirst(schema, {} as ApiServices);
    const operation = parse(reportQuery()).definitions[0] as OperationDefinitionNode;
    const field = operation.selectionSet.selections[0] as FieldNode;
    const text = `${reportQuery()}${' '.repeat(20_000)}`;
    for (let organization = 0; organization < 200; organization++)
      for (let n = 0; n < 3; n++) first.recognize(`org-${organization}`, `${text}${n}`, undefined, operation, field, 1);
    expect(first.bytes).toBeLessThanOrEqual(TOTAL_BYTES);
    expect(first.size).toBeGreaterThan(40);
    expect(first.size).toBeLessThan(600);
  });
});
