/**
 * Nothing one tenant sends is kept where another can reach it (issue 45, section 4): Apollo's
 * automatic persisted queries are off, since Apollo keeps them in one cache for every tenant. A
 * client that tries them is told PERSISTED_QUERY_NOT_SUPPORTED and sends whole documents, as the
 * protocol says; another tenant cannot have a document run, or learn that it was sent, by its hash.
 */
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server';

describe('automatic persisted queries', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', { reports: 5 });
  });
  afterAll(() => server.close());

  const post = async (key: string, body: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] } };
  };

  it('are not kept: a hash registered by one tenant is unknown to another, and to itself', async () => {
    const query = '{ dealerships(limit: 1) { total items { name } } }';
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    const registered = await post(server.keys[0]!, { query, extensions: { persistedQuery } });
    expect(registered.body.errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    for (const key of [server.keys[1]!, server.keys[0]!]) {
      const byHash = await post(key, { extensions: { persistedQuery } });
      expect(byHash.body.data).toBeUndefined();
      expect(byHash.body.errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    }
    // The whole document is served as always.
    expect((await post(server.keys[0]!, { query })).body.data).toBeDefined();
  });
});
