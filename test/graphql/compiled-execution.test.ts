/**
 * GraphQL documents run by graphql-js the first time and compiled by graphql-jit from the second
 * (api/graphql/compiled-execution.ts). graphql-js is the oracle: every document below must get
 * the same status and the same body, byte for byte, on its first answer (graphql-js) and on the
 * ones after (compiled), data, errors and their codes, paths and locations included.
 */
import { isCompiledQuery } from 'graphql-jit';
import { parse } from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { CompiledDocuments } from '../../src/api/graphql/compiled-execution';
import { startTestServer, type TestServer } from '../support/server';

describe('compiled documents', () => {
  it('compiles a document on its second sighting and keeps at most its capacity, least recently used out', async () => {
    const documents = new CompiledDocuments(await buildAppSchema(), 3);
    const document = parse('{ dealerships { total } }');
    expect(documents.compiledFor('a', document, null)).toBeUndefined();
    const compiled = documents.compiledFor('a', document, null);
    expect(compiled && isCompiledQuery(compiled)).toBe(true);
    expect(documents.compiledFor('a', document, null)).toBe(compiled);
    for (const key of ['b', 'c', 'd']) documents.compiledFor(key, document, null);
    expect(documents.size).toBe(3);
    // 'a' was the least recently used: gone, so it starts over at its first sighting.
    expect(documents.compiledFor('a', document, null)).toBeUndefined();
    expect(documents.compiledCount).toBe(0);
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

  const send = async (query: string, variables: Record<string, unknown> = {}) => {
    const operationName = query.startsWith('query op_1') ? 'Op' : undefined;
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables, operationName }),
    });
    return { status: response.status, body: await response.text() };
  };

  const report = () => server.dataset.reports.find((r) => r.organization_id === server.dataset.organizations[0]!.id)!;
  const documents: [string, string, () => Record<string, unknown>][] = [
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
    ['an operationName the document lacks', 'query op_1 { dealerships { total } }', () => ({})],
    ['introspection', '{ __type(name: "ReportPage") { name fields { name type { name kind } } } }', () => ({})],
  ];

  it.each(documents)('%s', async (_name, query, variables) => {
    const first = await send(query, variables());
    for (let i = 0; i < 3; i += 1) expect(await send(query, variables())).toEqual(first);
    // The document was answered: not a wholesale failure hiding a difference.
    expect(first.status).toBeLessThan(500);
    expect(first.body).toMatch(/"data"|"errors"/);
  });
});
