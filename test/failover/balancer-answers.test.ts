/**
 * What the production balancer (deploy/haproxy.cfg, run by the local haproxy as `npm run loadtest
 * -- --balancer haproxy` does) tells clients when an instance dies under a request: a 503 with
 * Retry-After, never a 502, so that clients see only 2xx, 4xx and 503 + Retry-After (issue 45's
 * api-kill nemesis); and a Keep-Alive hint shorter than its own idle timeout on every answer, so
 * that clients do not send a request on a connection HAProxy is closing. The instances here are
 * two small HTTP servers that announce Node's keep-alive as the service does (65 s); one of them
 * drops every POST without answering, as a killed instance does.
 *
 * Needs haproxy from Debian (.ci/run installs it).
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
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

async function instance(port: number): Promise<void> {
  const server = createServer((req, res) => {
    if (req.url === '/readyz') {
      res.end('{"status":"ready"}');
      return;
    }
    req.resume();
    // Dies under every POST: the socket closed before any answer.
    if (req.method === 'POST') req.on('end', () => req.socket.destroy());
    else req.on('end', () => res.end('{}'));
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
  for (const backend of backends) await instance(backend.port);
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

  it('tells clients to drop idle connections after 5 s, under its own 10 s, whatever the instance announces', async () => {
    const response = await fetch(`${balancer!.url}/public/dealerships/`);
    expect(response.status).toBe(200);
    await response.text();
    expect(response.headers.get('keep-alive')).toBe('timeout=5');
  });
});
