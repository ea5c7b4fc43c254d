/**
 * The topologies' one-shot query (loadtest/replication-cluster.ts `query`), used while HAProxy
 * may still cut the sessions of a server it has just marked down: a connection cut in the middle
 * of a statement rejects the call, and nothing else (no 'error' event left unheard, which ended
 * the process).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { query } from '../../loadtest/replication-cluster';
import { TEST_DATABASE_URL } from '../support/databases';

/** A proxy to PostgreSQL that cuts every connection once the client has sent its first statement. */
async function cuttingProxy(): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(TEST_DATABASE_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let fromClient = 0;
    client.on('data', (chunk) => {
      fromClient += 1;
      // 1: startup, 2: the statement (simple or extended query): cut both sides then.
      if (fromClient >= 2) {
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    for (const socket of [client, upstream]) socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(TEST_DATABASE_URL);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('query() of the test topologies', () => {
  it('rejects when the connection is cut during the statement, and the process lives on', async () => {
    const proxy = await cuttingProxy();
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', record);
    try {
      await expect(query(proxy.url, 'SELECT pg_sleep(0.2)')).rejects.toThrow(/terminated|closed|ECONNRESET/i);
      // An 'error' event emitted after the rejection would surface here.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('uncaughtException', record);
      await proxy.close();
    }
  });

  it('answers through the same kind of path when nothing cuts it', async () => {
    expect(await query<{ one: number }>(TEST_DATABASE_URL, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
