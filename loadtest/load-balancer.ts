/**
 * A small round-robin HTTP load balancer in front of the API instances, behaving the way nginx,
 * HAProxy or a cloud LB does in the respects that matter for the test:
 *
 * - active health checks: GET /readyz every second with a 2 s timeout; an instance is taken out
 *   after 3 failed checks (at once when its port refuses connections) and put back after 2 good
 *   ones (a 1 s timeout made a busy but healthy instance flap on 2 saturated cores);
 * - a request whose connection is refused (nothing was sent) goes to the next instance, whatever
 *   its method; an idempotent one (GET, HEAD) also when the instance died before answering; a POST
 *   that may have reached a dying instance is not re-sent (the client may, with its
 *   Idempotency-Key) and gets a 502;
 * - when no instance is healthy it sends to all of them anyway ("fail open", as AWS ALB and Envoy's
 *   panic threshold do), so the clients see the application's own answer during a database outage.
 *
 * Every answer the balancer makes itself carries `x-lb-error`, so the report can tell it from the
 * application's.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Timeline } from './timeline';

export interface Backend {
  name: string;
  port: number;
}

interface BackendState extends Backend {
  healthy: boolean;
  consecutiveOk: number;
  consecutiveFailed: number;
  /** a check is under way: the next tick skips this instance rather than overlap */
  checking: boolean;
  agent: http.Agent;
  forwarded: number;
}

export interface LoadBalancerStats {
  forwardedPerInstance: Record<string, number>;
  /** requests re-sent to another instance after a connection failure */
  retries: number;
  /** answers made by the balancer: "502 upstream-connection", "504 upstream-timeout", … */
  ownAnswers: Record<string, number>;
  /** requests sent while no instance was healthy */
  failOpen: number;
  /** clients that closed their connection before the answer */
  clientsGone: number;
}

export interface LoadBalancer {
  url: string;
  backends: readonly { name: string; healthy: boolean }[];
  stats: LoadBalancerStats;
  close(): Promise<void>;
}

const RISE = 2;
const FALL = 3;
const HEALTH_INTERVAL_MS = 1_000;
const HEALTH_TIMEOUT_MS = 2_000;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);
// RFC 9110 7.6.1: connection-specific fields are not forwarded.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

export async function startLoadBalancer(options: {
  backends: Backend[];
  upstreamTimeoutMs: number;
  timeline: Timeline;
}): Promise<LoadBalancer> {
  const { timeline, upstreamTimeoutMs } = options;
  const backends: BackendState[] = options.backends.map((b) => ({
    ...b,
    healthy: false,
    consecutiveOk: 0,
    consecutiveFailed: 0,
    checking: false,
    agent: new http.Agent({ keepAlive: true }),
    forwarded: 0,
  }));
  const stats: LoadBalancerStats = { forwardedPerInstance: {}, retries: 0, ownAnswers: {}, failOpen: 0, clientsGone: 0 };
  let next = 0;

  const setHealth = (backend: BackendState, healthy: boolean, why: string) => {
    if (backend.healthy === healthy) return;
    backend.healthy = healthy;
    timeline.mark(`load balancer: ${backend.name} ${healthy ? 'back in rotation' : `out of rotation (${why})`}`);
  };

  const checkHealth = async (backend: BackendState) => {
    if (backend.checking) return;
    backend.checking = true;
    let ok = false;
    let why = '';
    try {
      const response = await fetch(`http://127.0.0.1:${backend.port}/readyz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      ok = response.status === 200;
      why = `/readyz ${response.status}`;
      await response.arrayBuffer();
    } catch (error) {
      const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      why = code ?? ((error as Error).name === 'TimeoutError' ? '/readyz timed out' : (error as Error).message);
      if (code === 'ECONNREFUSED') backend.consecutiveFailed = FALL - 1;
    }
    backend.checking = false;
    if (ok) {
      backend.consecutiveFailed = 0;
      backend.consecutiveOk += 1;
      if (backend.consecutiveOk >= RISE) setHealth(backend, true, why);
    } else {
      backend.consecutiveOk = 0;
      backend.consecutiveFailed += 1;
      if (backend.consecutiveFailed >= FALL) setHealth(backend, false, why);
    }
  };
  const healthTimer = setInterval(() => backends.forEach((b) => void checkHealth(b)), HEALTH_INTERVAL_MS);
  backends.forEach((b) => void checkHealth(b));

  /** The next healthy instance not tried yet; when none is healthy, the next one not tried yet. */
  const pick = (tried: Set<BackendState>): BackendState | undefined => {
    const candidates = backends.filter((b) => b.healthy && !tried.has(b));
    const pool = candidates.length > 0 || backends.some((b) => b.healthy) ? candidates : backends.filter((b) => !tried.has(b));
    if (pool.length === 0) return undefined;
    if (candidates.length === 0) stats.failOpen += 1;
    next = (next + 1) % backends.length;
    return pool[next % pool.length];
  };

  const answer = (res: http.ServerResponse, status: number, error: string) => {
    const key = `${status} ${error}`;
    stats.ownAnswers[key] = (stats.ownAnswers[key] ?? 0) + 1;
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', 'x-lb-error': error });
    res.end(JSON.stringify({ detail: `load balancer: ${error}` }));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()));
  });
  // Longer than the clients' idle time: the balancer never closes a client's connection first.
  server.keepAliveTimeout = 120_000;

  function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, tried: Set<BackendState>): void {
    const backend = pick(tried);
    if (!backend) return answer(res, tried.size === 0 ? 503 : 502, tried.size === 0 ? 'no-instance' : 'upstream-connection');
    tried.add(backend);
    backend.forwarded += 1;
    stats.forwardedPerInstance[backend.name] = backend.forwarded;
    let answered = false;
    const upstream = http.request({
      host: '127.0.0.1',
      port: backend.port,
      method: req.method,
      path: req.url,
      agent: backend.agent,
      headers: {
        ...withoutHopByHop(req.headers),
        'x-forwarded-for': req.socket.remoteAddress ?? '',
        'x-forwarded-proto': 'http',
        'content-length': String(body.length),
      },
    });
    upstream.setTimeout(upstreamTimeoutMs, () => {
      if (answered) return;
      answered = true;
      upstream.destroy();
      answer(res, 504, 'upstream-timeout');
    });
    upstream.on('response', (upstreamRes) => {
      answered = true;
      res.writeHead(upstreamRes.statusCode ?? 502, { ...withoutHopByHop(upstreamRes.headers), 'x-upstream': backend.name });
      upstreamRes.pipe(res);
      // The instance died mid-body: the client must see a broken response, not a short one.
      upstreamRes.on('aborted', () => res.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      answered = true;
      // A refused connection is unambiguous: take the instance out without waiting for /readyz.
      if (error.code === 'ECONNREFUSED') {
        backend.consecutiveOk = 0;
        setHealth(backend, false, 'connection refused');
      }
      // Refused: nothing reached the instance, so any method may go elsewhere. Otherwise only an
      // idempotent one: the instance may have acted on it before dying.
      const retryable = error.code === 'ECONNREFUSED' || IDEMPOTENT.has(req.method ?? '');
      if (retryable && tried.size < backends.length && !res.destroyed) {
        stats.retries += 1;
        forward(req, res, body, tried);
        return;
      }
      answer(res, 502, 'upstream-connection');
    });
    // The client gave up (or the run stopped): so does the balancer, and nobody is answered.
    res.on('close', () => {
      if (res.writableFinished || answered) return;
      answered = true;
      stats.clientsGone += 1;
      upstream.destroy();
    });
    upstream.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    backends,
    stats,
    async close() {
      clearInterval(healthTimer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      backends.forEach((b) => b.agent.destroy());
    },
  };
}
