/**
 * The topologies' one-shot query (loadtest/replication-cluster.ts `query`), used while HAProxy
 * may still cut the sessions of a server it has just marked down: a connection cut in the middle
 * of a statement rejects the call, and nothing else (no 'error' event left unheard, which ended
 * the process).
 */
import { query } from '../../loadtest/replication-cluster';
import { TEST_DATABASE_URL } from '../support/databases';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

describe('query() of the test topologies', () => {
  let proxy: TcpProxy;
  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterAll(() => proxy.close());

  it('rejects when the connection is cut during the statement, and the process lives on', async () => {
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', record);
    try {
      const statement = `SELECT pg_sleep(2) -- query-helper ${process.pid}`;
      const running = query(proxy.urlFor(TEST_DATABASE_URL), statement);
      const settled = running.then(
        () => 'answered',
        (error: Error) => error.message,
      );
      // Cut once the statement runs on the server, not while the client connects.
      await waitFor(async () => {
        const rows = await query<{ n: number }>(TEST_DATABASE_URL, 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1', [
          statement,
        ]);
        return rows[0]!.n > 0;
      });
      await proxy.cut();
      expect(await settled).toMatch(/terminated|closed|ECONNRESET/i);
      // An 'error' event emitted after the rejection would surface here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
      await proxy.restore();
    }
  });

  it('answers through the proxy when nothing cuts it', async () => {
    expect(await query<{ one: number }>(proxy.urlFor(TEST_DATABASE_URL), 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
