/**
 * api-behaviour.md's error rows that no endpoint produces on purpose: an unexpected failure (here a
 * real one: a table dropped under the running service), request ids, oversized bodies.
 */
import { startTestServer, type TestServer } from '../support/server';
import { DATABASE_KINDS } from '../support/databases';

describe.each(DATABASE_KINDS)('server errors on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
  });
  afterAll(() => server.close());

  it('returns and logs a request id: the caller’s when sane, a new one otherwise', async () => {
    const given = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'crm-42.a' } });
    expect(given.headers.get('x-request-id')).toBe('crm-42.a');
    const made = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers JSON 404 outside /public too', async () => {
    const response = await fetch(`${server.url}/nowhere`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });

  it('refuses a body over 100 kB with a JSON 413', async () => {
    const response = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ dealership: server.dataset.dealerships[0]!.id, name: 'x'.repeat(200_000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: 'Request body too large' });
  });

  it('turns an unexpected failure into a bare 500 with a request id, REST and GraphQL alike', async () => {
    await server.db.prisma.$executeRawUnsafe('ALTER TABLE dealerships RENAME TO dealerships_gone');
    try {
      const rest = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[0]! } });
      expect(rest.status).toBe(500);
      expect(rest.headers.get('content-type')).toMatch(/^application\/json/);
      expect(rest.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const body = await rest.text();
      expect(JSON.parse(body)).toEqual({ detail: 'Internal Server Error' });
      expect(body).not.toMatch(/dealerships_gone|prisma|stack/i);

      const graphql = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ dealerships { total } }' }),
      });
      const result = (await graphql.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(result.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(JSON.stringify(result)).not.toMatch(/dealerships_gone|prisma|does not exist|stacktrace/i);
    } finally {
      await server.db.prisma.$executeRawUnsafe('ALTER TABLE dealerships_gone RENAME TO dealerships');
    }
  });
});
