/**
 * A TCP proxy in front of a shared server (PostgreSQL, Redis) for fault tests: the shared server
 * keeps running for everyone else while the code under test, which connects through the proxy,
 * sees it go away and come back.
 *
 * `cut()` does what a crashed or restarting server does to its clients: every open connection is
 * reset and new ones are refused (ECONNREFUSED, nothing listens on the port). `restore()` listens
 * on the same port again, so URLs handed out before the cut keep working.
 */
import net from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Connections forwarded since the proxy started (a reconnect shows up here). */
  readonly connectionsAccepted: number;
  /** Resets every open connection and refuses new ones until `restore()`. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let accepted = 0;

  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    // Either side failing or closing takes the other down with it, as a broken link would.
    const teardown = () => {
      client.resetAndDestroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', teardown).on('close', teardown);
    upstream.on('error', teardown).on('close', teardown);
    client.pipe(upstream);
    upstream.pipe(client);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });

  await listen(0);
  const { port } = server.address() as net.AddressInfo;

  const dropAll = () => {
    // RST rather than FIN: what the clients of a server that died see.
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };

  return {
    port,
    urlFor(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    get connectionsAccepted() {
      return accepted;
    },
    async cut() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropAll();
      await closed;
    },
    async restore() {
      if (!server.listening) await listen(port);
    },
    async close() {
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
