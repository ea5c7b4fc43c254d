/**
 * Per-organization rate limits over real HTTP (429, Retry-After, RateLimit headers), charged in
 * points (the SQL statements a request may run), shared through the real Redis at 127.0.0.1:6379,
 * and still enforced (per instance) when Redis is away.
 */
import { randomUUID } from 'node:crypto';
import { connectRedis, createRateLimiter } from '../../src/platform/rate-limit/rate-limiter';
import { startTestServer, type TestServer } from '../support/server';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

describe('rate limits over REST and GraphQL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', {
      reports: 10,
      config: { rateLimits: { requestsPerMinute: 10, leadsPerMinute: 2, anonymousPerMinute: 1_000_000 } },
    });
  });
  afterAll(() => server.close());

  it('answers 429 with Retry-After and the IETF headers once an organization used its budget; other organizations are unaffected', async () => {
    // A page of dealerships runs two statements (page and total): two points of the ten.
    const get = () => fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[0]! } });
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"requests";q=10;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"requests";r=8;t=\d+$/);
    for (let i = 0; i < 4; i += 1) expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: 'Rate limit exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit')).toMatch(/^"requests";r=0;t=\d+$/);

    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ dealerships { total } }' }),
    });
    expect(graphql.status).toBe(429);
    const body = (await graphql.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('RATE_LIMITED');

    const otherKey = await fetch(`${server.url}/public/dealerships/`, { headers: { 'x-api-key': server.keys[1]! } });
    expect(otherKey.status).toBe(200);
  });
});

describe('the lead creation limit', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A lead costs the statements it may run (about ten points): a budget that is not the constraint here.
    server = await startTestServer('pglite', {
      reports: 10,
      config: { rateLimits: { requestsPerMinute: 1_000, leadsPerMinute: 2, anonymousPerMinute: 1_000_000 } },
    });
  });
  afterAll(() => server.close());

  it('gives lead creation its own, lower limit', async () => {
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[1]!.id)!;
    const lead = () =>
      fetch(`${server.url}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'x-api-key': server.keys[1]!, 'content-type': 'application/json' },
        body: JSON.stringify({ dealership: dealership.id, name: 'Rate Test' }),
      });
    expect((await lead()).status).toBe(201);
    expect((await lead()).status).toBe(201);
    const refused = await lead();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: 'Rate limit exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('rate limiter storage', () => {
  it('shares a budget across instances through Redis', async () => {
    const redisA = connectRedis(REDIS_URL);
    const redisB = connectRedis(REDIS_URL);
    try {
      // Until a client is connected, its limiter falls back to memory (by design): wait for both.
      await Promise.all([redisA, redisB].map((r) => (r.status === 'ready' ? undefined : new Promise((ok) => r.once('ready', ok)))));
      const policy = { name: `test-${randomUUID()}`, points: 3, windowSeconds: 60 };
      const instanceA = createRateLimiter(policy, redisA);
      const instanceB = createRateLimiter(policy, redisB);
      const decisions = [];
      for (let i = 0; i < 4; i += 1) decisions.push(await (i % 2 === 0 ? instanceA : instanceB).consume('key-1'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    } finally {
      redisA.disconnect();
      redisB.disconnect();
    }
  });

  it('keeps limiting in memory when Redis is unreachable', async () => {
    const unreachable = connectRedis('redis://127.0.0.1:1');
    try {
      const limiter = createRateLimiter({ name: `down-${randomUUID()}`, points: 2, windowSeconds: 60 }, unreachable);
      const decisions = [];
      for (let i = 0; i < 3; i += 1) decisions.push(await limiter.consume('key-1'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    } finally {
      unreachable.disconnect();
    }
  });
});
