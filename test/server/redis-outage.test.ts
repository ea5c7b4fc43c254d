/**
 * Redis going away under a running service, and coming back: a real fault, made by a TCP proxy
 * between the app's Redis client and the shared Redis. While it is away the service keeps serving
 * and keeps limiting (per instance, in memory), with ONE warning in the log; once it is back, the
 * limits are shared through Redis again, without a restart.
 *
 * The database plays no part: PGlite only.
 */
import Redis from 'ioredis';
import { logger } from '../../src/platform/logger';
import { connectRedis, createRateLimiter, type RateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { startTestServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

/**
 * A Redis database of this test's own: it reads the organization's counter exactly, and other
 * suites running beside it (a real process with REDIS_URL, test/observability/trace-logs.test.ts)
 * count the same demo organizations in the default database.
 */
const REDIS_URL = (() => {
  const url = new URL(process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379');
  url.pathname = '/11';
  return url.toString();
})();
/** Points; a page of dealerships costs 2 (its page and total statements). */
const BUDGET = 8;
const COST = 2;

describe('Redis outage and recovery', () => {
  let proxy: TcpProxy;
  let appRedis: Redis;
  /** The test's own client, straight to Redis, to read the shared counter. */
  let direct: Redis;
  let rateLimits: RateLimits;
  let server: TestServer;
  let counterKey: string;
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    appRedis = connectRedis(proxy.urlFor(REDIS_URL));
    direct = new Redis(REDIS_URL);
    await waitFor(() => appRedis.status === 'ready');
    // As createRateLimits makes them, on a Redis client the test can watch.
    rateLimits = {
      requests: createRateLimiter({ name: 'requests', points: BUDGET, windowSeconds: 60 }, appRedis),
      leads: createRateLimiter({ name: 'leads', points: BUDGET, windowSeconds: 60 }, appRedis),
      anonymous: createRateLimiter({ name: 'anonymous', points: 1_000_000, windowSeconds: 60 }, appRedis),
      close: async () => appRedis.disconnect(),
    };
    server = await startTestServer('pglite', { reports: 5, rateLimits });
    const organizationId = server.dataset.organizations[0]!.id;
    // rate-limiter-flexible's key: prefix, then the limited key (the organization's id).
    counterKey = `vr-rl-requests:${organizationId}`;
    warn = jest.spyOn(logger, 'warn');
  });
  afterAll(async () => {
    warn?.mockRestore();
    await server?.close();
    await rateLimits?.close();
    await direct?.del(counterKey);
    direct?.disconnect();
    await proxy?.close();
  });

  const get = () => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[0]! } });
  const redisWarnings = () => warn.mock.calls.filter(([, message]) => /Redis unavailable/.test(String(message))).length;

  it('counts through Redis while it is there', async () => {
    for (const remaining of [BUDGET - COST, BUDGET - 2 * COST]) {
      const response = await get();
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"requests";r=${remaining};`));
    }
    expect(await direct.get(counterKey)).toBe(String(2 * COST));
  });

  it('keeps serving, and limiting in memory, while Redis is unreachable; warns once', async () => {
    await proxy.cut();
    await waitFor(() => appRedis.status !== 'ready');
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < BUDGET / COST + 3; i += 1) statuses.push((await get()).status);
    expect(Date.now() - started).toBeLessThan(2_000);
    // A fresh per-instance budget: BUDGET points served, then refused.
    expect(statuses).toEqual([...Array(BUDGET / COST).fill(200), 429, 429, 429]);
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[1]!, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ dealerships { total } }' }),
    });
    expect(graphql.status).toBe(200);
    // Reconnection attempts keep failing meanwhile: still one warning for the whole outage.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(redisWarnings()).toBe(1);
    // Nothing reached Redis.
    expect(await direct.get(counterKey)).toBe(String(2 * COST));
  });

  it('shares the limits through Redis again once it is back, without a restart', async () => {
    await proxy.restore();
    await waitFor(() => appRedis.status === 'ready', 10_000);
    const response = await get();
    expect(response.status).toBe(200);
    // The shared counter picks up where it was before the outage.
    expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"requests";r=${BUDGET - 3 * COST};`));
    expect(await direct.get(counterKey)).toBe(String(3 * COST));
    expect(redisWarnings()).toBe(1);
  });
});
