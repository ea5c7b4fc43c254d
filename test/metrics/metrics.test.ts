/**
 * GET /metrics over real HTTP on both databases: request timings by route template, SQL timings,
 * rate-limit refusals, the outbox backlog read at scrape time, notification attempts, and the
 * endpoint's own switches (METRICS_TOKEN, METRICS_ENABLED).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { loadConfig, type AppConfig } from '../../src/app/config';
import type { Database } from '../../src/platform/db/database';
import { createMetrics, type AppMetrics } from '../../src/platform/metrics/metrics';
import type { ChannelSenders } from '../../src/features/notifications/channels';
import { OutboxDispatcher } from '../../src/features/notifications/dispatcher';
import { buildDemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import { createApp } from '../../src/app/create-app';
import { createMigratedDatabase } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dealershipOf, FAST_DISPATCHER, postLead, quietLogger, setQuota } from '../notifications/support';

interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The samples of one series in the Prometheus text format. */
function samplesOf(text: string, name: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    return [{ labels, value: Number(match[3]) }];
  });
}

/** The value of the sample with exactly these labels (undefined when there is none). */
function valueOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samplesOf(text, name).find((s) => JSON.stringify(Object.entries(s.labels).sort()) === wanted)?.value;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** Serves an extra app (another configuration over the same database) on an ephemeral port. */
async function serve(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CREATE_LEAD = `mutation($dealership: UUID!) { createLead(dealership: $dealership, name: "Metrics") { token } }`;

describe.each(['pglite', 'postgres'] as const)('metrics (%s)', (kind) => {
  let server: TestServer;
  const extras: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    // One lead per key and minute: the second one is refused (the requests budget stays out of the way).
    server = await startTestServer(kind, {
      reports: 10,
      config: { rateLimits: { requestsPerMinute: 1_000_000, leadsPerMinute: 1, anonymousPerMinute: 1_000_000 } },
    });
  });
  afterAll(async () => {
    await Promise.all(extras.map((e) => e.close()));
    await server?.close();
  });

  async function extraApp(config: Partial<AppConfig>): Promise<string> {
    const served = await serve(await createApp({ db: server.db, config: { ...server.config, ...config } }));
    extras.push(served);
    return served.url;
  }

  it('times REST and GraphQL requests by route template, never by raw path, and not /metrics itself', async () => {
    const organization = server.dataset.organizations[0]!;
    const report = server.dataset.reports.find((r) => r.organization_id === organization.id)!;
    const key = server.keys[0]!;
    expect((await fetch(`${server.url}/public/reports/${report.token}`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await fetch(`${server.url}/public/dealerships/?limit=2`, { headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await graphql(server, '{ dealerships(limit: 1) { total } }', {}, key)).status).toBe(200);
    expect((await fetch(`${server.url}/no/such/${report.token}`)).status).toBe(404);

    await scrape(server.url);
    const text = await scrape(server.url);
    const count = (method: string, route: string, status: string) =>
      valueOf(text, 'vr_http_request_duration_seconds_count', { method, route, status_code: status });
    expect(count('GET', '/public/reports/{report_id}', '200')).toBe(1);
    expect(count('GET', '/public/dealerships/', '200')).toBe(1);
    expect(count('POST', '/graphql', '200')).toBe(1);
    expect(count('GET', 'unmatched', '404')).toBe(1);
    expect(
      valueOf(text, 'vr_http_request_duration_seconds_sum', { method: 'POST', route: '/graphql', status_code: '200' }),
    ).toBeGreaterThan(0);
    // Two scrapes so far, neither counted.
    expect(samplesOf(text, 'vr_http_request_duration_seconds_count').map((s) => s.labels.route)).not.toContain('/metrics');
    expect(text).not.toContain(report.token);
    expect(text).not.toContain(key);
    expect(text).not.toContain(organization.name);
    // prom-client's process and Node.js metrics come along.
    expect(samplesOf(text, 'process_cpu_user_seconds_total')).toHaveLength(1);
    expect(samplesOf(text, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
  });

  it('serves GET and HEAD of /metrics exactly: another case, a trailing slash or another method is not it', async () => {
    const get = await fetch(`${server.url}/metrics?any=query`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await get.text()).toContain('vr_http_request_duration_seconds');
    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const [method, path] of [
      ['GET', '/Metrics'],
      ['GET', '/metrics/'],
      ['GET', '/metrics/x'],
      ['POST', '/metrics'],
    ]) {
      const other = await fetch(`${server.url}${path}`, { method });
      expect([method, path, other.status]).toEqual([method, path, 404]);
      await other.arrayBuffer();
    }
  });

  it('reads the outbox backlog and the events written at scrape time and counts lead refusals by interface', async () => {
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 1_000);
    const pending = (text: string, channel: string) => valueOf(text, 'vr_notification_outbox_messages', { channel, status: 'pending' });
    const before = await scrape(server.url);
    expect(pending(before, 'email')).toBe(0);
    expect(pending(before, 'sms')).toBe(0);
    expect(valueOf(before, 'vr_rate_limit_rejections_total', { limit: 'leads', interface: 'rest' })).toBeUndefined();

    const email = 'metrics.client@example.com';
    const phone = '+33612345678';
    const lead = { dealership: dealership.id, name: 'Metrics Client', email, phone, sendEmail: true, sendPhone: true };
    expect((await postLead(server, server.keys[0], lead)).status).toBe(201);
    expect((await postLead(server, server.keys[0], lead)).status).toBe(429);
    const overGraphql = await graphql(server, CREATE_LEAD, { dealership: dealership.id }, server.keys[0]);
    expect(overGraphql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');

    const after = await scrape(server.url);
    expect(pending(after, 'email')).toBe(1);
    expect(pending(after, 'sms')).toBe(1);
    // The lead's report was written: its event moved the feed's newest position (the events written).
    expect(valueOf(after, 'vr_events_last_position', {})).toBeGreaterThan(valueOf(before, 'vr_events_last_position', {})!);
    expect(valueOf(after, 'vr_notification_outbox_messages', { channel: 'sms', status: 'failed' })).toBe(0);
    expect(valueOf(after, 'vr_notification_outbox_oldest_pending_age_seconds', { channel: 'email' })).toBeGreaterThanOrEqual(0);
    expect(valueOf(after, 'vr_rate_limit_rejections_total', { limit: 'leads', interface: 'rest' })).toBe(1);
    expect(valueOf(after, 'vr_rate_limit_rejections_total', { limit: 'leads', interface: 'graphql' })).toBe(1);
    expect(
      valueOf(after, 'vr_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/public/reports/create-lead',
        status_code: '429',
      }),
    ).toBe(1);
    expect(after).not.toContain(email);
    expect(after).not.toContain(phone);
  });

  it('METRICS_TOKEN: 401 without the bearer token or with another one, 200 with it; no API key needed', async () => {
    const url = await extraApp({ metrics: { enabled: true, token: 'scrape-secret-1', host: '127.0.0.1' } });
    const without = await fetch(`${url}/metrics`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await without.json()).toEqual({ detail: 'Not authenticated' });
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-secret-2' } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-secret-1x' } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { 'x-api-key': server.keys[0]! } })).status).toBe(401);
    const text = await scrape(url, { authorization: 'Bearer scrape-secret-1' });
    expect(text).toContain('# TYPE vr_http_request_duration_seconds histogram');
  });

  it('METRICS_ENABLED=false: /metrics is a 404 like any unknown path', async () => {
    const url = await extraApp({ metrics: { enabled: false, host: '127.0.0.1' } });
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });
});

describe.each(['pglite', 'postgres'] as const)('metrics fed by the database and the dispatcher (%s)', (kind) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let metrics: AppMetrics;
  let served: { url: string; close(): Promise<void> };
  let keys: string[];
  let dealershipId: string;

  beforeAll(async () => {
    // As main.ts wires it: one AppMetrics for the database's onQuery, the app and the dispatcher.
    metrics = createMetrics();
    ({ db, cleanup } = await createMigratedDatabase(kind, { onQuery: metrics.observeQuery }));
    const dataset = buildDemoDataset({ reports: 5 });
    const seeded = await seedDatabase(db.prisma, dataset);
    keys = dataset.organizations.map((o) => seeded.keys.find((k) => k.organization_id === o.id)!.key);
    const organization = dataset.organizations[1]!;
    const dealership = dataset.dealerships.find((d) => d.organization_id === organization.id)!;
    dealershipId = dealership.id;
    await db.prisma.entity.update({
      where: { id: dealership.entity_id },
      data: { remote_quota: 1_000, remote_quota_used: 0, quota_period_start: new Date(), quota_period_months: 1 },
    });
    const config: AppConfig = {
      ...loadConfig({}),
      nodeEnv: 'test',
      seedDemoData: false,
      // Points: a dealerships page costs 2 (page and total), a lead 8 (the statements it may run).
      rateLimits: { requestsPerMinute: 8, leadsPerMinute: 1_000, anonymousPerMinute: 1_000_000 },
    };
    served = await serve(await createApp({ db, config, metrics }));
  });
  afterAll(async () => {
    await served?.close();
    await cleanup?.();
  });

  it('times SQL statements by kind only, and counts refusals of the requests budget', async () => {
    const selects = (text: string) => valueOf(text, 'vr_db_query_duration_seconds_count', { operation: 'select' }) ?? 0;
    const before = selects(await scrape(served.url));
    const get = () => fetch(`${served.url}/public/dealerships/`, { headers: { 'x-api-key': keys[0]! } });
    for (let i = 0; i < 4; i += 1) expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);

    const text = await scrape(served.url);
    // Each request reads its key and its page; the scrape adds one backlog query.
    expect(selects(text) - before).toBeGreaterThanOrEqual(6);
    expect(valueOf(text, 'vr_db_query_duration_seconds_sum', { operation: 'select' })).toBeGreaterThan(0);
    const operations = samplesOf(text, 'vr_db_query_duration_seconds_count').map((s) => s.labels.operation);
    expect(operations).toContain('insert'); // the seed
    for (const operation of operations)
      expect([
        'select',
        'insert',
        'update',
        'delete',
        'with',
        'begin',
        'commit',
        'rollback',
        'savepoint',
        'release',
        'set',
        'other',
      ]).toContain(operation);
    expect(valueOf(text, 'vr_rate_limit_rejections_total', { limit: 'requests', interface: 'rest' })).toBe(1);
    expect(valueOf(text, 'vr_rate_limit_rejections_total', { limit: 'requests', interface: 'graphql' })).toBeUndefined();
  });

  it('counts notification attempts by channel and outcome; the backlog shows the ones that gave up', async () => {
    const created = await fetch(`${served.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': keys[1]!, 'content-type': 'application/json' },
      body: JSON.stringify({
        dealership: dealershipId,
        name: 'Metrics Client',
        email: 'metrics.client@example.com',
        phone: '+33612345678',
        sendEmail: true,
        sendPhone: true,
      }),
    });
    expect(created.status).toBe(201);
    const senders: ChannelSenders = {
      email: { target: 'test', send: async () => undefined },
      sms: {
        target: 'test',
        send: async () => {
          throw new Error('provider down');
        },
      },
    };
    const dispatcher = new OutboxDispatcher(db.prisma, senders, { ...FAST_DISPATCHER, maxAttempts: 1 }, quietLogger, metrics);
    expect(await dispatcher.runOnce()).toBe(2);

    const text = await scrape(served.url);
    expect(valueOf(text, 'vr_notification_attempts_total', { channel: 'email', outcome: 'sent' })).toBe(1);
    expect(valueOf(text, 'vr_notification_attempts_total', { channel: 'sms', outcome: 'failed' })).toBe(1);
    expect(valueOf(text, 'vr_notification_attempts_total', { channel: 'sms', outcome: 'sent' })).toBeUndefined();
    expect(valueOf(text, 'vr_notification_outbox_messages', { channel: 'sms', status: 'failed' })).toBe(1);
    expect(valueOf(text, 'vr_notification_outbox_messages', { channel: 'sms', status: 'pending' })).toBe(0);
    expect(valueOf(text, 'vr_notification_outbox_messages', { channel: 'email', status: 'pending' })).toBe(0);
    expect(text).not.toContain('metrics.client@example.com');
  });
});
