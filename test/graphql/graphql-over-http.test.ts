/**
 * GraphQL over HTTP as the standard clients meet it, checked by outside oracles: graphql-http's
 * own audit suite (every MUST and SHOULD of the GraphQL-over-HTTP spec) run against the real
 * server with a key, GET queries as urql sends them by default, and the `id` client caches
 * normalize on.
 */
import { auditServer } from 'graphql-http';
import { graphql, startTestServer, type TestServer } from '../support/server';

describe.each(['pglite', 'postgres'] as const)('GraphQL over HTTP on %s', (kind) => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 10 });
    key = server.keys[0]!;
  });
  afterAll(() => server.close());

  it("passes graphql-http's server audits, MUSTs and SHOULDs", async () => {
    const withKey = (input: RequestInfo | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-api-key', key);
      return fetch(input, { ...init, headers });
    };
    const results = await auditServer({ url: `${server.url}/graphql`, fetchFn: withKey });
    const notOk = results.filter((r) => r.status !== 'ok').map((r) => `${r.status} ${r.name}${'reason' in r ? `: ${r.reason}` : ''}`);
    expect(notOk).toEqual([]);
    expect(results.length).toBeGreaterThan(50);
  });

  it('answers a GET query with the key (urql and graphql-request send GET by default)', async () => {
    const query = encodeURIComponent('{ reports(limit: 1) { total items { token } } }');
    const response = await fetch(`${server.url}/graphql?query=${query}`, {
      headers: { 'x-api-key': key, accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { reports: { total: number } } };
    expect(body.data.reports.total).toBeGreaterThan(0);
    // Not a conditional answer (docs/api-behaviour.md): no ETag hashed from the body, no 304 from one.
    expect(response.headers.get('etag')).toBeNull();
    const posted = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ reports(limit: 1) { total } }' }),
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('etag')).toBeNull();
    // A GET with neither a key nor a preflight-forcing header is still refused before anything runs.
    expect((await fetch(`${server.url}/graphql?query=${query}`)).status).toBe(401);
  });

  it('serves operations at /graphql (a trailing slash too) and nowhere under it', async () => {
    const post = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ reports(limit: 1) { total } }' }),
      });
    const slashed = await post('/graphql/');
    expect(slashed.status).toBe(200);
    expect(((await slashed.json()) as { data: { reports: { total: number } } }).data.reports.total).toBeGreaterThan(0);
    for (const path of ['/graphql/x', '/graphql/graphql']) {
      const response = await post(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(await response.json()).toEqual({ detail: 'Not Found' });
    }
  });

  it('refuses a JSON filter sent as its text (REST habit) instead of matching nothing', async () => {
    const asText = await graphql(server, 'query($f: JSON) { reports(data__contains: $f) { total } }', { f: '{"vehicle":{}}' }, key);
    expect(asText.status).toBe(200);
    expect(asText.body.data).toBeNull();
    expect(asText.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', argumentName: 'data__contains' } });
    expect(asText.body.errors?.[0]?.message).toMatch(/not its text/);
    const asObject = await graphql<{ reports: { total: number } }>(
      server,
      'query($f: JSON) { reports(data__contains: $f) { total } }',
      { f: { vehicle: {} } },
      key,
    );
    expect(asObject.body.data!.reports.total).toBeGreaterThan(0);
  });

  it('reads date-times as REST does: a date alone is midnight UTC', async () => {
    const rest = (await (
      await fetch(`${server.url}/public/reports/?created_at__gte=2000-01-01&limit=0`, { headers: { 'x-api-key': key } })
    ).json()) as {
      total: number;
    };
    for (const [query, variables] of [
      ['{ reports(created_at__gte: "2000-01-01", limit: 0) { total } }', {}],
      ['query($d: DateTimeISO) { reports(created_at__gte: $d, limit: 0) { total } }', { d: '2000-01-01' }],
      ['query($d: DateTimeISO) { reports(created_at__gte: $d, limit: 0) { total } }', { d: '2000-01-01T00:00:00Z' }],
    ] as const) {
      const response = await graphql<{ reports: { total: number } }>(server, query, variables, key);
      expect([query, variables, response.body.errors]).toEqual([query, variables, undefined]);
      expect(response.body.data!.reports.total).toBe(rest.total);
    }
    const future = await graphql<{ reports: { total: number } }>(server, '{ reports(created_at__gte: "2999-01-01") { total } }', {}, key);
    expect(future.body.data!.reports.total).toBe(0);
    const bad = await graphql(server, 'query($d: DateTimeISO) { reports(created_at__gte: $d) { total } }', { d: '2000-13-01' }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('gives every report an id (its token) to normalize on, in GraphQL only', async () => {
    const response = await graphql<{ reports: { items: { id: string; token: string }[] } }>(
      server,
      '{ reports(limit: 3) { items { id token } } }',
      {},
      key,
    );
    const items = response.body.data!.reports.items;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.id).toBe(item.token);
    const full = await graphql<{ report: { id: string } }>(
      server,
      'query($t: UUID!) { report(report_id: $t) { id } }',
      { t: items[0]!.token },
      key,
    );
    expect(full.body.data!.report.id).toBe(items[0]!.token);
    const rest = (await (await fetch(`${server.url}/public/reports/?limit=1`, { headers: { 'x-api-key': key } })).json()) as {
      items: object[];
    };
    expect(rest.items[0]).not.toHaveProperty('id');
  });
});
