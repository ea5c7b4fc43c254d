/**
 * Subscriptions do not outlive their permission (issue 45, section 4), over real WebSockets:
 * - a key revoked while its socket is open closes that socket with 4403 within 5 s;
 * - keyless attempts are counted by the client's address as TRUST_PROXY reads it, not the socket's
 *   (all of a proxy's clients came from its one address);
 * - the per-organization bound on open subscriptions holds across two instances sharing Redis;
 * - a reconnect storm: a subscriber reconnecting every 150 ms while 60 transactions commit out of
 *   order receives every event once, in feed order.
 */
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import WebSocket from 'ws';
import { createApp } from '../../src/app/create-app';
import { createHttpServer } from '../../src/platform/http/http-server';
import { createRateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { issueApiKey, revokeApiKey } from '../../src/features/auth/api-keys';
import { CLOSE_FORBIDDEN, CLOSE_TOO_MANY_ATTEMPTS } from '../../src/api/graphql/subscriptions/subscription-server';
import { startTestServer, type TestServer } from '../support/server';
import pg from 'pg';
import { subscribe, subscriptionClient, wsUrl, type PushedEvent } from '../support/subscriptions';
import { graphql } from '../support/server';
import { waitFor } from '../support/wait';

/** A raw graphql-transport-ws socket: initialised with `payload`, then (if acknowledged) subscribed to `query`. */
async function openSocket(server: { url: string }, payload: Record<string, unknown>, headers: Record<string, string> = {}) {
  const socket = new WebSocket(wsUrl(server), 'graphql-transport-ws', { headers });
  const messages: { type: string; id?: string; payload?: unknown }[] = [];
  socket.on('message', (data: Buffer) => messages.push(JSON.parse(String(data)) as never));
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: performance.now() })),
  );
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload }));
  const acknowledged = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = setInterval(() => {
        if (messages.some((m) => m.type === 'connection_ack')) {
          clearInterval(check);
          resolve(true);
        }
      }, 10);
      void closed.then(() => clearInterval(check));
    }),
    closed.then(() => false),
  ]);
  const subscribe = (id: string, query: string) => socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
  return { socket, messages, closed, acknowledged, subscribe };
}

describe('subscriptions and their permission', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 5,
      config: {
        trustProxy: 'loopback',
        rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 3 },
      },
    });
  });
  afterAll(() => server.close());

  it.each([
    ['through the API', 'api'],
    ['by plain SQL', 'sql'],
  ])('a key revoked %s closes its open subscription socket with 4403 within 5 s', async (_label, how) => {
    const organizationId = server.dataset.organizations[0]!.id;
    const issued = await issueApiKey(server.db.prisma, organizationId, 'subscription to revoke', 'demo');
    const open = await openSocket(server, { 'x-api-key': issued.key });
    expect(open.acknowledged).toBe(true);
    open.subscribe('1', 'subscription { events { cursor } }');
    // The subscription is running before the key goes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(open.messages.filter((m) => m.type === 'error')).toEqual([]);
    const revokedAt = performance.now();
    if (how === 'api') expect(await revokeApiKey(server.db.prisma, issued.id)).toBe(true);
    else await server.db.prisma.$executeRawUnsafe(`UPDATE api_keys SET revoked_at = now() WHERE id = $1::uuid`, issued.id);
    const closed = await Promise.race([open.closed, new Promise<undefined>((resolve) => setTimeout(resolve, 5_000))]);
    expect(closed).toMatchObject({ code: CLOSE_FORBIDDEN, reason: expect.stringMatching(/revoked/) });
    expect(closed!.at - revokedAt).toBeLessThan(5_000);
    // And the key opens nothing new.
    const again = await openSocket(server, { 'x-api-key': issued.key });
    expect(again.acknowledged).toBe(false);
    expect((await again.closed).code).toBe(CLOSE_FORBIDDEN);
  });

  it('a key of another organization, or one still valid, keeps its socket', async () => {
    const keep = await openSocket(server, { 'x-api-key': server.keys[1]! });
    expect(keep.acknowledged).toBe(true);
    const other = await issueApiKey(server.db.prisma, server.dataset.organizations[1]!.id, 'other key to revoke', 'demo');
    await revokeApiKey(server.db.prisma, other.id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(keep.socket.readyState).toBe(WebSocket.OPEN);
    keep.socket.close();
  });

  it('keyless attempts are counted by the address TRUST_PROXY reads (X-Forwarded-For from the proxy), not the socket', async () => {
    const attempt = async (address: string) => {
      const open = await openSocket(server, {}, { 'x-forwarded-for': address });
      return (await open.closed).code;
    };
    // Three attempts a minute per address (anonymousPerMinute), then 4429.
    const first = [await attempt('203.0.113.7'), await attempt('203.0.113.7'), await attempt('203.0.113.7')];
    expect(first).toEqual([CLOSE_FORBIDDEN, CLOSE_FORBIDDEN, CLOSE_FORBIDDEN]);
    expect(await attempt('203.0.113.7')).toBe(CLOSE_TOO_MANY_ATTEMPTS);
    // Another client behind the same proxy has its own budget.
    expect(await attempt('203.0.113.8')).toBe(CLOSE_FORBIDDEN);
  });
});

describe('the per-organization bound on open subscriptions, across two instances', () => {
  const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
  const PER_ORGANIZATION = 2;
  let first: TestServer;
  let second: { url: string; close: () => Promise<void> };
  const rateLimits = [
    createRateLimits({ redisUrl: REDIS_URL, requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 }),
    createRateLimits({ redisUrl: REDIS_URL, requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 }),
  ];

  beforeAll(async () => {
    first = await startTestServer('postgres', {
      reports: 5,
      rateLimits: rateLimits[0],
      config: {
        rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000, redisUrl: REDIS_URL },
        subscriptions: {
          perOrganization: PER_ORGANIZATION,
          perSocket: 10,
          maxMessageBytes: 64 * 1024,
          pollMs: 60_000,
          pollWithoutNotificationsMs: 500,
        },
      },
    });
    // Leases another run of this suite left (same demo organizations) lapse; start without them.
    const redis = new Redis(REDIS_URL);
    await redis.del(...first.dataset.organizations.map((o) => `vr-subscriptions:${o.id}`));
    redis.disconnect();
    // A second instance: same database, same Redis, its own process state.
    const app = await createApp({ db: first.db, config: first.config, rateLimits: rateLimits[1] });
    const http = createHttpServer(app, { requestTimeoutMs: first.config.requestTimeoutMs });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    second = {
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => http.close(() => resolve())),
    };
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await Promise.all(rateLimits.map((limits) => limits.close()));
  });

  /** Subscribes on an open socket and waits for its refusal, or 500 ms of none (admitted). */
  const subscribeOn = async (open: Awaited<ReturnType<typeof openSocket>>, id: string) => {
    open.subscribe(id, 'subscription { events { cursor } }');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const error = open.messages.find((m) => m.type === 'error' && m.id === id);
    return error ? (error.payload as { extensions?: { code?: string } }[])[0]?.extensions?.code : 'open';
  };

  it('holds across instances, and a subscription closed on one lets another open on the other', async () => {
    const key = first.keys[0]!;
    const onFirst = await openSocket(first, { 'x-api-key': key });
    const onSecond = await openSocket(second, { 'x-api-key': key });
    expect(await subscribeOn(onFirst, 'a')).toBe('open');
    expect(await subscribeOn(onSecond, 'b')).toBe('open');
    // The organization has its two, one on each instance: a third is refused on either.
    expect(await subscribeOn(onFirst, 'c')).toBe('RATE_LIMITED');
    expect(await subscribeOn(onSecond, 'd')).toBe('RATE_LIMITED');
    // Another organization is not affected.
    const other = await openSocket(second, { 'x-api-key': first.keys[1]! });
    expect(await subscribeOn(other, 'e')).toBe('open');
    // One completed on the first instance: the second may open one.
    onFirst.socket.send(JSON.stringify({ id: 'a', type: 'complete' }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await subscribeOn(onSecond, 'f')).toBe('open');
    // A socket closed releases its subscriptions too.
    onSecond.socket.close();
    await onSecond.closed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await subscribeOn(onFirst, 'g')).toBe('open');
    onFirst.socket.close();
    other.socket.close();
  });
});

describe('a reconnect storm', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 20,
      config: {
        subscriptions: { perOrganization: 10, perSocket: 10, maxMessageBytes: 64 * 1024, pollMs: 60_000, pollWithoutNotificationsMs: 500 },
      },
    });
  });
  afterAll(() => server.close());

  const FIELDS = 'cursor position type subject';
  /** The feed after `after` (GraphQL query), every page. */
  const feed = async (key: string, after: string) => {
    const items: PushedEvent[] = [];
    let next = after;
    for (;;) {
      const page = await graphql<{ events: { items: PushedEvent[]; next: string } }>(
        server,
        `query($after: String) { events(after: $after, limit: 1000, types: "report.updated") { items { ${FIELDS} } next } }`,
        { after: next || null },
        key,
      );
      items.push(...page.body.data!.events.items);
      next = page.body.data!.events.next;
      if (page.body.data!.events.items.length < 1000) return { items, next };
    }
  };

  it('60 transactions committing out of order while a subscriber reconnects every 150 ms: every event once, in feed order', async () => {
    const key = server.keys[0]!;
    const organizationId = server.dataset.organizations[0]!.id;
    const tokens = server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);
    const { next: start } = await feed(key, '');
    const query = `subscription($after: String) { events(after: $after, types: ["report.updated"]) { ${FIELDS} } }`;

    const received: PushedEvent[] = [];
    let cursor = start;
    let stop = false;
    let connections = 0;
    const subscriber = (async () => {
      while (!stop) {
        const client = subscriptionClient(server, { 'x-api-key': key });
        const sub = subscribe(client, query, { after: cursor });
        connections += 1;
        await new Promise((resolve) => setTimeout(resolve, 150));
        await client.dispose();
        expect(sub.errors).toEqual([]);
        received.push(...sub.events);
        if (sub.events.length > 0) cursor = sub.events[sub.events.length - 1]!.cursor;
      }
    })();

    // 60 transactions, each updating a report and holding its commit a random while: positions are
    // taken in one order and committed in another.
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 30 });
    try {
      await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query(`UPDATE reports SET data = jsonb_set(data, '{metadata,storm}', to_jsonb($2::int)) WHERE token = $1::uuid`, [
              tokens[i % tokens.length],
              i,
            ]);
            await client.query('SELECT pg_sleep($1)', [Math.random() * 0.4]);
            await client.query('COMMIT');
          } finally {
            client.release();
          }
        }),
      );
    } finally {
      await pool.end();
    }
    try {
      await waitFor(() => received.length >= 60 || undefined, 30_000);
      // A while longer: anything repeated would come now.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      stop = true;
      await subscriber;
    }
    const expected = await feed(key, start);
    expect(expected.items).toHaveLength(60);
    expect(received.map((e) => e.cursor)).toEqual(expected.items.map((e) => e.cursor));
    expect(connections).toBeGreaterThan(5);
  }, 90_000);
});
