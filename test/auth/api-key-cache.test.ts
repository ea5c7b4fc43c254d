/**
 * Keys are served from memory after their first lookup, and forgotten the moment the database
 * revokes, deletes or truncates them, whoever does it (here: SQL from another connection, as the
 * admin CLI of another process would). Over real HTTP, on both databases.
 */
import pg from 'pg';
import { digestOf } from '../../src/features/auth/api-keys';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { DATABASE_KINDS } from '../support/databases';

describe.each(DATABASE_KINDS)('API key cache on %s', (kind) => {
  let server: TestServer;
  /** SQL from outside the service: another connection on PostgreSQL, the shared instance on PGlite. */
  let sql: (text: string, params?: unknown[]) => Promise<unknown[]>;
  let outside: pg.Client | undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 10 });
    if (server.databaseUrl) {
      outside = new pg.Client({ connectionString: server.databaseUrl });
      await outside.connect();
      sql = async (text, params) => (await outside!.query(text, params)).rows;
    } else {
      sql = (text, params) => server.db.prisma.$queryRawUnsafe(text, ...(params ?? []));
    }
  });
  afterAll(async () => {
    await outside?.end();
    await server?.close();
  });

  const list = (key: string) => fetch(`${server.url}/public/reports/?limit=1`, { headers: { 'x-api-key': key } });
  const keyLookups = () => server.queries.filter((query) => /FROM api_keys WHERE digest/.test(query)).length;

  /** A fresh key of the first organization, looked up once so that it is cached. */
  async function cachedKey(): Promise<{ key: string; digest: string }> {
    const key = `vr_test_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url')}`;
    await sql(`INSERT INTO api_keys (id, organization_id, name, prefix, digest) VALUES (gen_random_uuid(), $1::uuid, 'cache', $2, $3)`, [
      server.dataset.organizations[0]!.id,
      key.slice(0, 12),
      digestOf(key),
    ]);
    // The first request after the listener is up caches the key.
    await waitFor(async () => {
      server.resetQueryLog();
      expect((await list(key)).status).toBe(200);
      return keyLookups() === 0;
    });
    return { key, digest: digestOf(key) };
  }

  it('looks a key up once, then serves it without a statement', async () => {
    const { key } = await cachedKey();
    server.resetQueryLog();
    for (let i = 0; i < 3; i += 1) expect((await list(key)).status).toBe(200);
    expect(keyLookups()).toBe(0);
  });

  it('refuses a key at once when it is revoked from another connection', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { key, digest } = await cachedKey();
      await sql(`UPDATE api_keys SET revoked_at = now() WHERE digest = $1`, [digest]);
      // The NOTIFY travels as the request does: refused within a moment, not after the entry's minute.
      await waitFor(async () => (await list(key)).status === 401, 1_000, 5);
    }
  });

  it('refuses keys at once when they are deleted or the table is truncated', async () => {
    const deleted = await cachedKey();
    await sql(`DELETE FROM api_keys WHERE digest = $1`, [deleted.digest]);
    await waitFor(async () => (await list(deleted.key)).status === 401, 1_000, 5);

    const truncated = await cachedKey();
    const survivor = await cachedKey();
    const rows = (await sql(`SELECT id, organization_id, name, prefix, digest FROM api_keys`)) as Record<string, string>[];
    await sql(`TRUNCATE api_keys`);
    await waitFor(async () => (await list(truncated.key)).status === 401, 1_000, 5);
    // Put the other keys back (other tests use the demo keys); the cache looked them up again.
    for (const row of rows.filter((r) => r.digest !== truncated.digest)) {
      await sql(`INSERT INTO api_keys (id, organization_id, name, prefix, digest) VALUES ($1::uuid, $2::uuid, $3, $4, $5)`, [
        row.id,
        row.organization_id,
        row.name,
        row.prefix,
        row.digest,
      ]);
    }
    expect((await list(survivor.key)).status).toBe(200);
  });

  it('does not cache last_used_at bookkeeping as a change: keys stay cached across it', async () => {
    const { key, digest } = await cachedKey();
    await sql(`UPDATE api_keys SET last_used_at = now() - interval '1 hour' WHERE digest = $1`, [digest]);
    server.resetQueryLog();
    expect((await list(key)).status).toBe(200);
    expect(keyLookups()).toBe(0);
  });

  if (kind === 'postgres') {
    it('stops trusting its entries soon after its listening connection is gone, and caches again once it is back', async () => {
      const { key, digest } = await cachedKey();
      const other = await cachedKey();
      const [terminated] = (await sql(
        `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE application_name = 'vr-api-listener' AND datname = current_database()) t`,
      )) as { n: number }[];
      expect(terminated!.n).toBe(1);
      // Revoked while nobody listens: the NOTIFY is lost. The cache stops answering from memory
      // within its heartbeat's trust window (3 s), not after the entry's minute.
      await sql(`UPDATE api_keys SET revoked_at = now() WHERE digest = $1`, [digest]);
      await waitFor(async () => (await list(key)).status === 401, 5_000, 50);
      // Reconnected: the other key is cached again after one lookup.
      await waitFor(async () => {
        server.resetQueryLog();
        expect((await list(other.key)).status).toBe(200);
        return keyLookups() === 0;
      }, 20_000);
    });
  }
});
