import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * A TCP port nothing listens on right now, for another process to listen on (PostgreSQL, etcd,
 * Patroni, HAProxy, PgBouncer, the service). Picked below the kernel's ephemeral range: a port
 * the kernel handed out (listen(0)) is released before the other process binds it, seconds later
 * for a Patroni standby, and meanwhile any outgoing connection of a parallel test may take it as
 * its local port, so the bind fails and the process never comes up. Ports below the range are
 * never given to connections. The same process never gets the same port twice.
 */
export async function freePort(): Promise<number> {
  const range = listenPortRange();
  if (!range) return kernelPort();
  const [low, high] = range;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return kernelPort();
}

const handedOut = new Set<number>();

/** Ports below the ephemeral range (ip_local_port_range, 32768-60999 by default) and above the well-known services. */
function listenPortRange(): [number, number] | undefined {
  let ephemeralLow = 32_768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: the usual range
  }
  return ephemeralLow > 12_000 ? [10_000, ephemeralLow - 1] : undefined;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The kernel's pick (an ephemeral port): the fallback when no port below the range is free. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}
