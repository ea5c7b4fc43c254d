/**
 * The failures the fuzzer found (issue 7), kept as plain examples so that each stays fixed even
 * when a random run does not happen to draw it. Each was a 500, an INTERNAL_SERVER_ERROR, or an
 * answer in the wrong shape.
 */
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { JSON_FILTER_SCALARS, nestedJsonText } from './hostile-values';
import { sendRaw, type RawResponse } from './raw-http';
import { countRows } from './row-counts';

type Json = Record<string, unknown>;

describe.each(DATABASE_KINDS)('requests the fuzzer found failing (%s)', (kind) => {
  let server: TestServer;
  let key: string;
  const json = (response: RawResponse) => JSON.parse(response.text) as Json;
  const get = (path: string) => sendRaw(server.url, { method: 'GET', path, headers: { 'x-api-key': key } });
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    sendRaw(server.url, { method: 'POST', path, headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers }, body });
  const graphql = async (query: string, variables: Json = {}) => {
    const response = await post('/graphql', JSON.stringify({ query, variables }));
    return {
      status: response.status,
      body: json(response) as { data?: Json | null; errors?: { message: string; extensions: { code: string } }[] },
    };
  };
  const codes = (body: { errors?: { extensions: { code: string } }[] }) => body.errors?.map((e) => e.extensions.code);

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
    key = server.keys[0]!;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('a JSON filter that is not an object (NaN, Infinity, scalars, arrays, deep nesting) is never a 5xx, on REST and GraphQL', async () => {
    const answers: [string, number][] = [];
    for (const filter of ['data__contains', 'state__contains', 'data__not_contains', 'state__not_contains']) {
      for (const value of JSON_FILTER_SCALARS) {
        const rest = await get(`/public/reports/?${filter}=${encodeURIComponent(value)}`);
        answers.push([`REST ${filter}=${value.slice(0, 30)}`, rest.status]);
        const answer = await graphql(`query ($v: JSON) { reports(${filter}: $v, limit: 1) { total } }`, { v: value });
        answers.push([
          `GraphQL ${filter}=${value.slice(0, 30)}`,
          answer.status >= 500 || codes(answer.body)?.includes('INTERNAL_SERVER_ERROR') ? 500 : answer.status,
        ]);
      }
    }
    // REST's bare NaN (`GET /public/reports/?state__contains=NaN`, issue 22) was a 500.
    expect(answers.filter(([, status]) => status >= 500)).toEqual([]);
  });

  it('a path parameter with a broken percent-escape is a 422 on the parameter, not a 500', async () => {
    for (const [path, loc] of [
      ['/public/reports/%ZZ', ['path', 'report_id']],
      ['/public/users/%E0%A4%A', ['path', 'user_id']],
      ['/public/reports/%C0%AF', ['path', 'report_id']],
    ] as const) {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, 422]);
      expect(json(response).detail).toEqual([expect.objectContaining({ type: 'uuid_parsing', loc })]);
    }
  });

  it('a UUID in a form Pydantic accepts ({braced}, urn:uuid:) finds the row, in a path or in a body', async () => {
    const user = server.dataset.users.find((u) => u.organization_id === server.dataset.organizations[0]!.id)!;
    for (const form of [`%7B${user.id}%7D`, `urn:uuid:${user.id}`, user.id.toUpperCase()]) {
      const response = await get(`/public/users/${form}`);
      expect([form, response.status, json(response).id]).toEqual([form, 200, user.id]);
    }
    for (const form of ['{00000000-0000-0000-0000-000000000000}', 'urn:uuid:00000000-0000-0000-0000-000000000000']) {
      const response = await post('/public/reports/create-lead', JSON.stringify({ dealership: form }));
      expect([form, response.status, json(response)]).toEqual([form, 404, { detail: 'Dealership not found' }]);
    }
  });

  it('a JSON body nested beyond Python’s recursion limit is FastAPI’s 400, not a stack overflow', async () => {
    for (const body of ['['.repeat(60_000), nestedJsonText(5_000, 'array')]) {
      const response = await post('/public/reports/create-lead', body);
      expect(response.status).toBe(400);
      expect(json(response)).toEqual({ detail: 'There was an error parsing the body' });
    }
    // Shallower than the limit: parsed, then refused as not an object.
    const shallow = await post('/public/reports/create-lead', nestedJsonText(900, 'array'));
    expect(shallow.status).toBe(422);
    expect(json(shallow).detail).toEqual([expect.objectContaining({ type: 'model_attributes_type', loc: ['body'] })]);
  });

  it('text PostgreSQL cannot store (NUL, unpaired surrogates) is a 422 / BAD_USER_INPUT, and writes nothing', async () => {
    for (const [parameter, value] of [
      ['search', '%00'],
      ['vin', 'AB%00'],
      ['dealership_name', 'x%00'],
      ['data__contains', '%7B%22a%22%3A%22%5Cu0000%22%7D'],
    ] as const) {
      const response = await get(`/public/reports/?${parameter}=${value}`);
      expect([parameter, response.status]).toEqual([parameter, 422]);
      expect(json(response).detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['query', parameter] })]);
    }
    const before = await countRows(server.db);
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[0]!.id)!.id;
    for (const [field, value] of [
      ['name', '\\u0000'],
      ['name', '\\ud800'],
      ['folder_name', 'a\\udc00b'],
      ['custom_sms', 'Hi \\u0000{link}'],
    ] as const) {
      const response = await post('/public/reports/create-lead', `{"dealership":"${dealership}","${field}":"${value}"}`);
      expect([field, value, response.status]).toEqual([field, value, 422]);
      expect(json(response).detail).toEqual([expect.objectContaining({ type: 'value_error', loc: ['body', field] })]);
    }
    const lead = await graphql(`mutation ($name: String) { createLead(dealership: "${dealership}", name: $name) { token } }`, {
      name: 'Jeanne\u0000',
    });
    expect(codes(lead.body)).toEqual(['BAD_USER_INPUT']);
    expect(await countRows(server.db)).toEqual(before);
    for (const variables of [{ v: { a: '\u0000' } }, { v: ['\ud800'] }, { v: { 'key\u0000': 1 } }]) {
      const result = await graphql('query ($v: JSON) { reports(data__contains: $v) { total } }', variables);
      expect(codes(result.body)).toEqual(['BAD_USER_INPUT']);
    }
  });

  it('a JSON argument nested thousands of levels deep is BAD_USER_INPUT; 200 levels still run', async () => {
    const deep = await graphql('query ($v: JSON) { reports(data__contains: $v) { total } }', {
      v: JSON.parse(nestedJsonText(3_000, 'array')),
    });
    expect(codes(deep.body)).toEqual(['BAD_USER_INPUT']);
    const fine = await graphql('query ($v: JSON) { reports(data__contains: $v) { total } }', {
      // an object: a filter must be one (issue 24)
      v: JSON.parse(nestedJsonText(199, 'object')),
    });
    expect(fine.body).toEqual({ data: { reports: { total: 0 } } });
  });

  it('GraphQL answers malformed, oversized and mis-encoded bodies in its own error shape', async () => {
    for (const [body, headers, status] of [
      ['{"query": ', {}, 400],
      [JSON.stringify({ query: `{ __typename } # ${'x'.repeat(110_000)}` }), {}, 413],
      ['{"query":"{ __typename }"}', { 'content-type': 'application/json; charset=latin1' }, 415],
    ] as const) {
      const response = await post('/graphql', body, headers);
      expect(response.status).toBe(status);
      expect(json(response)).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'BAD_REQUEST' } }] });
    }
  });

  it('GraphQL documents the depth check could not follow, and operations the schema lacks, are 400s', async () => {
    for (const query of ['{ ...Missing }', 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }']) {
      const result = await graphql(query);
      expect([query, result.status, codes(result.body)?.[0]]).toEqual([query, 400, 'GRAPHQL_VALIDATION_FAILED']);
    }
    // Subscriptions are served over WebSocket only (test/events/subscriptions.test.ts).
    const subscription = await graphql('subscription { events { cursor } }');
    expect([subscription.status, codes(subscription.body)]).toEqual([400, ['BAD_REQUEST']]);
    const unknownSubscription = await graphql('subscription { reports { total } }');
    expect([unknownSubscription.status, codes(unknownSubscription.body)]).toEqual([400, ['GRAPHQL_VALIDATION_FAILED']]);
    const persisted = await post(
      '/graphql',
      JSON.stringify({ query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
    );
    // Automatic persisted queries are off (test/abuse/shared-caches.test.ts): Apollo's answer, a 200 its clients read.
    expect([persisted.status, codes(json(persisted) as never)]).toEqual([200, ['PERSISTED_QUERY_NOT_SUPPORTED']]);
  });
});
