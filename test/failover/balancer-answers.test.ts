/**
 * What the production balancer (deploy/haproxy.cfg, run by the local haproxy as `npm run loadtest
 * -- --balancer haproxy` does) tells clients when an instance dies under a request: a 503 with
 * Retry-After, never a 502, so that clients see only 2xx, 4xx and 503 + Retry-After (issue 45's
 * api-kill nemesis); and a Keep-Alive hint shorter than its own idle timeout on every answer, so
 * that clients do not send a request on a connection HAProxy is closing; and a request with an
 * Idempotency-Key whose instance died under it is sent again to the other one, so that it gets an
 * answer even on a kept-alive client connection. The instances here are two small HTTP servers
 * that announce Node's keep-alive as the service does (65 s); they drop a POST without answering,
 * as a killed instance does: every POST without an Idempotency-Key, and the first arrival of each key.
 *
 * Needs haproxy from Debian (.ci/run installs it).
 */
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHaproxy } from '../../loadtest/haproxy-balancer';
import type { LoadBalancer } from '../../loadtest/load-balancer';
import { freePort, sleep } from '../../loadtest/net';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/platform/http/http-server';
import { Timeline } from '../../loadtest/timeline';

let dir: string;
let balancer: LoadBalancer | undefined;
const servers: Server[] = [];
/** Arrivals at either instance, by the test's request id (`x-test-id`). */
const arrivals = new Map<string, string[]>();

async function instance(name: string, port: number): Promise<void> {
  const server = createServer((req, res) => {
    if (req.url === '/readyz') {
      res.end('{"status":"ready"}');
      return;
    }
    const id = String(req.headers['x-test-id'] ?? '');
    const seen = arrivals.get(id) ?? [];
    arrivals.set(id, [...seen, name]);
    req.resume();
    // Dies under a POST (the socket closed before any answer), but the second arrival of a keyed one.
    if (req.method === 'POST' && (req.headers['idempotency-key'] === undefined || seen.length === 0))
      req.on('end', () => req.socket.destroy());
    else req.on('end', () => res.writeHead(req.method === 'POST' ? 201 : 200).end('{}'));
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vr-balancer-'));
  const backends = [
    { name: 'api-1', port: await freePort() },
    { name: 'api-2', port: await freePort() },
  ];
  for (const backend of backends) await instance(backend.name, backend.port);
  balancer = await startHaproxy({ backends, dir, timeline: new Timeline() });
  const end = Date.now() + 15_000;
  while (
    !(await fetch(`${balancer.url}/public/x`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > end) throw new Error('HAProxy does not forward to the instances');
    await sleep(100);
  }
});

/** One request through the balancer on `agent`; `reusedSocket`: it went on a connection that carried one before. */
function send(agent: Agent, method: string, url: string, headers: Record<string, string>) {
  return new Promise<{ status?: number; reusedSocket: boolean }>((resolve, reject) => {
    const req = request(`${balancer!.url}${url}`, { method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, reusedSocket: req.reusedSocket }));
    });
    req.on('error', reject);
    if (method === 'POST') req.setHeader('content-type', 'application/json');
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

afterAll(async () => {
  await balancer?.close();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('deploy/haproxy.cfg answers for an instance that dies under a request', () => {
  it('a POST whose instance closed without answering is a 503 with Retry-After and the API’s body, not a 502', async () => {
    // On a connection of its own: on a connection that already carried a request, HAProxy closes
    // it without an answer instead (by design, so that the client may send it again; docs/deploy.md).
    const response = await new Promise<{ status?: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = request(`${balancer!.url}/public/reports/create-lead`, { method: 'POST', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.setHeader('content-type', 'application/json');
      req.end('{}');
    });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body)).toEqual({ detail: 'Service Unavailable' });
  });

  it('a POST with an Idempotency-Key whose instance died under it, on a kept-alive connection, is sent again to the other instance', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // The first request opens the connection; the POST is the second on it.
      const first = await send(agent, 'GET', '/public/dealerships/', { 'x-test-id': 'keyed-get' });
      expect(first.status).toBe(200);
      const answer = await send(agent, 'POST', '/public/reports/create-lead', { 'x-test-id': 'keyed-post', 'idempotency-key': 'k-1' });
      expect(answer.status).toBe(201);
      expect(answer.reusedSocket).toBe(true);
      expect(new Set(arrivals.get('keyed-post'))).toEqual(new Set(['api-1', 'api-2']));
    } finally {
      agent.destroy();
    }
  });

  it('a POST without an Idempotency-Key is never sent twice', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await send(agent, 'GET', '/public/dealerships/', { 'x-test-id': 'plain-get' })).status).toBe(200);
      // On a connection that already carried a request, HAProxy closes it without an answer
      // (its design: the client may send it again when it knows that is safe).
      const answer = await send(agent, 'POST', '/public/reports/create-lead', { 'x-test-id': 'plain-post' }).then(
        (received) => `answered ${received.status}`,
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect(answer).toBe('ECONNRESET');
      expect(arrivals.get('plain-post')).toHaveLength(1);
    } finally {
      agent.destroy();
    }
  });

  it('tells clients to drop idle connections after 5 s, under its own 10 s, whatever the instance announces', async () => {
    const response = await fetch(`${balancer!.url}/public/dealerships/`);
    expect(response.status).toBe(200);
    await response.text();
    expect(response.headers.get('keep-alive')).toBe('timeout=5');
  });
});
