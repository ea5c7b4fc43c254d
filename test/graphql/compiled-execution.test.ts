/**
 * GraphQL documents run by graphql-js the first time and compiled by graphql-jit from the second
 * (api/graphql/compiled-execution.ts). graphql-js is the oracle: every document below must get
 * the same status and the same body, byte for byte, on its first answer (graphql-js) and on the
 * ones after (compiled), data, errors and their codes, paths and locations included.
 */
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { parse } from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { CompiledDocuments } from '../../src/api/graphql/compiled-execution';
import { restDocumentFor } from '../../src/api/rest/rest-documents';
import { REST_ROUTES } from '../../src/api/rest/routes';
import { startTestServer, type TestServer } from '../support/server';

describe('compiled documents', () => {
  it('compiles a document on its second sighting by one organization; over its byte bound the least recently used go', async () => {
    const schema = await buildAppSchema();
    const document = parse('{ dealerships { total } }');
    // Room for one compiled document (2 expanded fields) and a sighting or two.
    const documents = new CompiledDocuments(schema, { bytesPerExpandedField: 1_000, bytesPerSighting: 100, organizationBytes: 2_300 });
    expect(documents.compiledFor('org', 'a', document, null)).toBeUndefined();
    const compiled = documents.compiledFor('org', 'a', document, null);
    expect(compiled && isCompiledQuery(compiled)).toBe(true);
    expect(documents.compiledFor('org', 'a', document, null)).toBe(compiled);
    // Another organization's sighting is its own: not compiled on its first.
    expect(documents.compiledFor('other', 'a', document, null)).toBeUndefined();
    for (const key of ['b', 'c']) documents.compiledFor('org', key, document, null);
    documents.compiledFor('org', 'b', document, null);
    // 'a' was the least recently used: gone, so it starts over at its first sighting.
    expect(documents.compiledFor('org', 'a', document, null)).toBeUndefined();
    expect(documents.compiledCount('org')).toBe(1);
    expect(documents.bytes('org')).toBeLessThanOrEqual(2_300);
  });
});

describe.each(['pglite', 'postgres'] as const)('compiled GraphQL execution answers as graphql-js on %s', (kind) => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 30 });
    key = server.keys[0]!;
  });
  afterAll(() => server.close());

  const send = async (query: string, variables: Record<string, unknown>, operationName?: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables, operationName }),
    });
    return { status: response.status, body: await response.text() };
  };

  const report = () => server.dataset.reports.find((r) => r.organization_id === server.dataset.organizations[0]!.id)!;
  const documents: [name: string, query: string, variables: () => Record<string, unknown>, operationName?: string][] = [
    [
      'a page with relations, nested lists, aliases and a fragment',
      `query Page($limit: Int) { reports(limit: $limit, order_by: "-created_at") { total limit offset items { ...row } }
         dealerships { items { id name users(limit: 2) { total items { id email } } } } }
       fragment row on ReportCompact { token created_at type valid dealership { name } profile { name email } }`,
      () => ({ limit: 7 }),
    ],
    ['a page without its total (not counted)', '{ reports(limit: 3) { items { token } } }', () => ({})],
    [
      'one report with its whole document',
      `query ($id: UUID!) { report(report_id: $id) { token created_at data { vehicle { vin brand model } } state real_costs } }`,
      () => ({ id: report().token }),
    ],
    [
      'an unknown id beside a sibling: NOT_FOUND with its path, the sibling kept',
      `query ($id: UUID!) { report(report_id: $id) { token } dealerships { total } }`,
      () => ({ id: '00000000-0000-4000-8000-000000000000' }),
    ],
    ['a malformed variable: 400 BAD_USER_INPUT', 'query ($id: UUID!) { report(report_id: $id) { token } }', () => ({ id: 'nope' })],
    ['an argument its rules refuse', '{ reports(limit: 100000) { total } }', () => ({})],
    [
      '@skip and @include from variables, __typename',
      'query ($a: Boolean!, $b: Boolean!) { reports(limit: 2) { __typename total @skip(if: $a) items @include(if: $b) { token } } }',
      () => ({ a: true, b: true }),
    ],
    // operationName naming no operation of the document (found by the HTTP fuzzer): graphql-js's answer.
    ['an operationName the document lacks', 'query op_1 { dealerships { total } }', () => ({}), 'Op'],
    ['introspection', '{ __type(name: "ReportPage") { name fields { name type { name kind } } } }', () => ({})],
    // Issue 22, from generated documents:
    [
      'C1: a refused argument nulls all of data while other fields fail later: the same errors',
      `{ a: report(report_id: "00000000-0000-4000-8000-000000000000") { token } b: reports(limit: 100000) { total }
         c: report(report_id: "00000000-0000-4000-8000-000000000001") { token } d: dealerships(limit: -1) { total } }`,
      () => ({}),
    ],
    ['C2: the default of a non-null variable not sent', 'query ($v: Int! = 1) { users(offset: $v) { offset } }', () => ({})],
    [
      'C3: an error at a field also selected under a @skip that removes it',
      `query ($t: Boolean! = true) { report(report_id: "00000000-0000-4000-8000-000000000000") @skip(if: $t) { token }
         report(report_id: "00000000-0000-4000-8000-000000000000") { token } }`,
      () => ({}),
    ],
    [
      'C4: null for a nullable variable where the argument is non-null with a default',
      'query ($v: Int) { dealerships(offset: $v) { total } }',
      () => ({ v: null }),
    ],
    [
      'N10: null for a @skip condition whose variable has a default',
      'query ($s: Boolean = false) { dealerships @skip(if: $s) { total } }',
      () => ({ s: null }),
    ],
    [
      'C5: errors of several root fields, in document order',
      `{ z: report(report_id: "00000000-0000-4000-8000-000000000002") { token } dealerships { total }
         a: report(report_id: "00000000-0000-4000-8000-000000000001") { token } m: users(order_by: ",") { total } }`,
      () => ({}),
    ],
  ];

  // Rows as objects: with tuples of uneven length, jest would take a missing last element for `done`.
  it.each(documents.map((document) => ({ name: document[0], document })))(
    '$name',
    async ({ document: [, query, variables, operationName] }) => {
      const first = await send(query, variables(), operationName);
      for (let i = 0; i < 3; i += 1) expect(await send(query, variables(), operationName)).toEqual(first);
      // The document was answered: not a wholesale failure hiding a difference.
      expect(first.status).toBeLessThan(500);
      expect(first.body).toMatch(/"data"|"errors"/);
      expect(first.body).not.toContain('INTERNAL_SERVER_ERROR');
    },
  );

  it('compiles every document above that names its operation rightly: the comparisons ran the compiled path', async () => {
    const compiler = new CompiledDocuments(await buildAppSchema());
    // C3's document stays on graphql-js by design (a conditional field before its key's other field).
    for (const [name, query] of documents.filter(([name, , , operationName]) => !operationName && !name.startsWith('C3'))) {
      compiler.compiledFor('org', name, parse(query), null);
      expect([name, compiler.compiledFor('org', name, parse(query), null) !== undefined]).toEqual([name, true]);
    }
  });
});

describe('compiled REST execution', () => {
  it('compiles every route’s document (a route graphql-jit could not compile would fall back to graphql-js unseen)', async () => {
    const schema = await buildAppSchema();
    for (const route of REST_ROUTES) {
      const compiled = compileQuery(schema, restDocumentFor(schema, route));
      expect([route.path, isCompiledQuery(compiled)]).toEqual([route.path, true]);
    }
  });
});
