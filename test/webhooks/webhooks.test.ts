/**
 * Signed webhooks of the change feed (docs/events.md, "Webhooks"): a receiver that was down gets
 * every event afterwards, in feed order, each verified with the `standardwebhooks` package (the
 * outside oracle); another organization's events never reach it; a dispatcher killed with
 * SIGKILL mid-delivery loses nothing (duplicates keep their webhook-id); receivers on private
 * addresses are refused in production mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { runCli } from '../../src/admin/cli';
import { readEvents, type FeedEvent } from '../../src/features/events/events.service';
import { deliver } from '../../src/features/webhooks/delivery';
import { destinationProblem } from '../../src/features/webhooks/destination';
import { WebhookDispatcher, type WebhookDispatcherConfig } from '../../src/features/webhooks/webhook-dispatcher';
import { createWebhookEndpoint } from '../../src/features/webhooks/webhooks.service';
import { logger } from '../../src/platform/logger';
import { createMetrics } from '../../src/platform/metrics/metrics';
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on loopback: answers 503 while `up` is false; `hold` delays each answer. */
async function startReceiver() {
  const state = {
    up: true,
    holdMs: 0,
    received: [] as Received[],
    accepted: [] as Received[],
    onRequest: (_r: Received) => undefined as void,
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const received = { headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      state.received.push(received);
      state.onRequest(received);
      setTimeout(() => {
        if (!state.up) return response.writeHead(503).end('down for maintenance');
        state.accepted.push(received);
        response.writeHead(204).end();
      }, state.holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CONFIG: WebhookDispatcherConfig = {
  pollIntervalMs: 20,
  batchSize: 10,
  eventsPerClaim: 10,
  leaseMs: 10_000,
  timeoutMs: 500,
  maxAttempts: 100,
  backoffBaseMs: 20,
  backoffMaxMs: 100,
  allowPrivateAddresses: true,
};

async function touchReports(server: TestServer, tokens: string[], tag: string) {
  // Plain SQL, one statement per report, as the inspection application would write.
  for (const token of tokens) {
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE reports SET data = jsonb_set(data, '{metadata,tag}', to_jsonb($2::text)) WHERE token = $1::uuid`,
      token,
      tag,
    );
  }
}

/**
 * The organization's events of `types` after `after`, once the events of every report in `subjects`
 * are visible (the horizon may lag a moment). The page may hold more than those: an endpoint
 * created without `after` starts at the feed's horizon, which a transaction running elsewhere on
 * the server (another test's database) can hold below events committed a moment before.
 */
async function feedAfter(
  server: TestServer,
  organizationId: string,
  request: { after: string; types?: string },
  subjects: string[],
): Promise<FeedEvent[]> {
  const items = await waitFor(async () => {
    const page = await readEvents(server.db.prisma, organizationId, { ...request, limit: 1000 });
    return subjects.every((s) => page.items.some((e) => e.subject === s)) ? page.items : undefined;
  }, 20_000);
  return items!;
}

describe.each(DATABASE_KINDS)('webhooks on %s', (kind) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let orgA: string;
  let tokensA: string[];
  let tokensB: string[];

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 30 });
    receiver = await startReceiver();
    orgA = server.dataset.organizations[0]!.id;
    const orgB = server.dataset.organizations[1]!.id;
    tokensA = server.dataset.reports.filter((r) => r.organization_id === orgA).map((r) => r.token);
    tokensB = server.dataset.reports.filter((r) => r.organization_id === orgB).map((r) => r.token);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  it('a receiver down for a while then gets every event, in feed order, each verified, nothing of another organization', async () => {
    const created = await runCli(['webhook:create', '--org', orgA, '--url', receiver.url, '--types', 'report.updated'], server.db);
    expect(created.code).toBe(0);
    const endpoint = created.output as { id: string; secret: string; cursor: string };
    expect(endpoint.secret).toMatch(/^whsec_/);
    receiver.state.up = false;
    await touchReports(server, tokensA.slice(0, 6), 'down');
    await touchReports(server, tokensB.slice(0, 3), 'other organization');
    const expected = await feedAfter(server, orgA, { after: endpoint.cursor, types: 'report.updated' }, tokensA.slice(0, 6));
    expect(expected.length).toBeGreaterThanOrEqual(6);

    const metrics = createMetrics();
    const dispatcher = new WebhookDispatcher(server.db.prisma, CONFIG, logger, metrics);
    dispatcher.start();
    try {
      // The receiver answers a request after holding it, and reads `up` then: a 6th request
      // (sent only once the 5th was answered) means 5 were refused, whatever happens next.
      await waitFor(() => receiver.state.received.length >= 6, 20_000);
      expect(receiver.state.accepted).toHaveLength(0);
      receiver.state.up = true;
      await waitFor(() => receiver.state.accepted.length >= expected.length, 20_000);
    } finally {
      await dispatcher.stop();
    }
    const wh = new Webhook(endpoint.secret);
    const delivered = receiver.state.accepted.map(
      (r) => wh.verify(r.body, r.headers) as { type: string; data: { cursor: string; subject: string } },
    );
    expect(delivered.map((d) => d.data.cursor)).toEqual(expected.map((e) => e.cursor));
    expect(delivered.every((d) => d.type === 'report.updated' && tokensA.includes(d.data.subject))).toBe(true);
    expect(receiver.state.accepted.map((r) => r.headers['webhook-id'])).toEqual(expected.map((e) => `evt_${e.position}`));
    // Every retry of an event carried that event's id.
    const firstId = receiver.state.accepted[0]!.headers['webhook-id'];
    expect(receiver.state.received.filter((r) => r.headers['webhook-id'] !== firstId).length).toBe(expected.length - 1);
    // Counted: each delivered with its lag, the failed attempts as retries.
    const text = await metrics.registry.metrics();
    expect(text).toContain(`vr_webhook_attempts_total{outcome="delivered"} ${expected.length}`);
    expect(text).toMatch(/vr_webhook_attempts_total\{outcome="retry"\} ([5-9]|\d\d+)/);
    expect(text).toContain(`vr_webhook_delivery_lag_seconds_count ${expected.length}`);
    // A signature made with another secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        receiver.state.accepted[0]!.body,
        receiver.state.accepted[0]!.headers,
      ),
    ).toThrow();

    const listed = await runCli(['webhook:list', '--org', orgA], server.db);
    expect((listed.output as { endpoints: { delivered_count: number; cursor: string }[] }).endpoints[0]).toMatchObject({
      delivered_count: expected.length,
    });
    const rotated = await runCli(['webhook:rotate', '--org', orgA, '--id', endpoint.id], server.db);
    expect((rotated.output as { secret: string }).secret).not.toBe(endpoint.secret);
    const disabled = await runCli(['webhook:disable', '--org', orgA, '--id', endpoint.id], server.db);
    expect(disabled.output).toMatchObject({ status: 'disabled' });
    // Another organization's id: not found.
    const foreign = await runCli(['webhook:disable', '--org', server.dataset.organizations[1]!.id, '--id', endpoint.id], server.db);
    expect(foreign.code).toBe(1);
  }, 60_000);

  it('dead-letters an event after the last attempt, moves on, and sends it again on request', async () => {
    const created = await runCli(['webhook:create', '--org', orgA, '--url', receiver.url, '--types', 'report.updated'], server.db);
    const endpoint = created.output as { id: string; secret: string; cursor: string };
    receiver.state.accepted.length = 0;
    receiver.state.received.length = 0;
    // The receiver refuses the first event for good; the second goes through.
    let refused: string | undefined;
    receiver.state.up = true;
    const dispatcher = new WebhookDispatcher(server.db.prisma, { ...CONFIG, maxAttempts: 3 }, logger);
    receiver.state.onRequest = (r) => {
      refused ??= r.headers['webhook-id'];
      receiver.state.up = r.headers['webhook-id'] !== refused;
    };
    await touchReports(server, tokensA.slice(0, 2), 'dead letter');
    dispatcher.start();
    try {
      await waitFor(() => receiver.state.accepted.length >= 1, 20_000);
    } finally {
      await dispatcher.stop();
    }
    expect(receiver.state.received.filter((r) => r.headers['webhook-id'] === refused)).toHaveLength(3);
    expect(receiver.state.accepted.map((r) => r.headers['webhook-id'])).not.toContain(refused);
    const listed = (await runCli(['webhook:list', '--org', orgA], server.db)).output as {
      endpoints: { id: string; dead_letters: number }[];
    };
    expect(listed.endpoints.find((e) => e.id === endpoint.id)).toMatchObject({ dead_letters: 1 });

    receiver.state.onRequest = () => undefined;
    receiver.state.up = true;
    const redelivered = await runCli(['webhook:redeliver', '--org', orgA, '--id', endpoint.id], server.db);
    expect(redelivered.output).toMatchObject({ dead_letters: 0, status: 'enabled' });
    const again = new WebhookDispatcher(server.db.prisma, CONFIG, logger);
    again.start();
    try {
      await waitFor(() => receiver.state.accepted.some((r) => r.headers['webhook-id'] === refused), 20_000);
    } finally {
      await again.stop();
    }
    new Webhook(endpoint.secret).verify(receiver.state.accepted.at(-2)!.body, receiver.state.accepted.at(-2)!.headers);
  }, 60_000);

  it("lets the organization's key manage its endpoints through GraphQL", async () => {
    const key = server.keys[0]!;
    const created = await graphql<{ createWebhookEndpoint: { id: string; secret: string; types: string[] } }>(
      server,
      'mutation { createWebhookEndpoint(url: "http://127.0.0.1:9/api", types: "report.created") { id secret types status } }',
      {},
      key,
    );
    expect(created.body.errors).toBeUndefined();
    const { id, secret } = created.body.data!.createWebhookEndpoint;
    expect(created.body.data!.createWebhookEndpoint).toMatchObject({ types: ['report.created'], status: 'enabled' });
    const rotated = await graphql<{ rotateWebhookSecret: { secret: string } }>(
      server,
      `mutation { rotateWebhookSecret(id: "${id}") { secret } }`,
      {},
      key,
    );
    expect(rotated.body.data!.rotateWebhookSecret.secret).not.toBe(secret);
    const disabled = await graphql(server, `mutation { disableWebhookEndpoint(id: "${id}") { status } }`, {}, key);
    expect(disabled.body.data).toEqual({ disableWebhookEndpoint: { status: 'disabled' } });
    const listed = await graphql<{ webhookEndpoints: { id: string }[] }>(server, '{ webhookEndpoints { id } }', {}, key);
    expect(listed.body.data!.webhookEndpoints.map((e) => e.id)).toContain(id);
    // Bad input is a BAD_USER_INPUT naming the argument, never a 500.
    for (const bad of [
      'mutation { createWebhookEndpoint(url: "ftp://x") { id } }',
      'mutation { createWebhookEndpoint(url: "http://x", types: "nope") { id } }',
    ]) {
      const answer = await graphql(server, bad, {}, key);
      expect(answer.status).toBe(200);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });

  it('refuses receivers on loopback, private and link-local addresses in production mode', async () => {
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://localhost/x',
      'http://192.168.1.1/',
    ]) {
      expect({ url, problem: await destinationProblem(url, false) }).toEqual({
        url,
        problem: expect.stringMatching(/not a public address|resolves to/),
      });
      expect(await destinationProblem(url, true)).toBeUndefined();
    }
    await expect(createWebhookEndpoint(server.db.prisma, orgA, { url: receiver.url }, { allowPrivate: false })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    // At delivery time as well (an endpoint stored earlier, or a name that resolves differently now).
    const before = receiver.state.received.length;
    const ip = await deliver(
      receiver.url,
      `whsec_${Buffer.alloc(24).toString('base64')}`,
      { id: 'x', body: '{}' },
      { timeoutMs: 500, allowPrivate: false },
    );
    const named = await deliver(
      receiver.url.replace('127.0.0.1', 'localhost'),
      `whsec_${Buffer.alloc(24).toString('base64')}`,
      { id: 'x', body: '{}' },
      { timeoutMs: 500, allowPrivate: false },
    );
    expect([ip.ok, named.ok]).toEqual([false, false]);
    expect(ip.excerpt).toMatch(/refused/);
    expect(named.excerpt).toMatch(/refused/);
    expect(receiver.state.received.length).toBe(before);
  });
});

describe('webhooks on postgres: a dispatcher killed with SIGKILL mid-delivery', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startTestServer('postgres', { reports: 30 });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await receiver?.close();
    await server?.close();
  });

  const startWorker = () => {
    // One process (tsx's CLI would run the worker in a child that SIGKILL of the parent leaves alive).
    const worker = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'app', 'worker.ts')], {
      env: {
        ...process.env,
        DATABASE_URL: server.databaseUrl,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        LOG_FORMAT: 'json',
        WEBHOOK_POLL_INTERVAL_MS: '20',
        WEBHOOK_LEASE_MS: '1500',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_EVENTS_PER_CLAIM: '1',
        WEBHOOK_BACKOFF_BASE_MS: '20',
        WEBHOOK_BACKOFF_MAX_MS: '100',
      },
      stdio: 'ignore',
    });
    workers.push(worker);
    return worker;
  };

  it('loses nothing; the event in flight comes again with the same webhook-id', async () => {
    const orgA = server.dataset.organizations[0]!.id;
    const tokens = server.dataset.reports.filter((r) => r.organization_id === orgA).map((r) => r.token);
    const created = await runCli(['webhook:create', '--org', orgA, '--url', receiver.url], server.db);
    const endpoint = created.output as { id: string; secret: string; cursor: string };
    await touchReports(server, tokens.slice(0, 8), 'kill');
    const expected = await feedAfter(server, orgA, { after: endpoint.cursor }, tokens.slice(0, 8));

    receiver.state.holdMs = 300;
    const first = startWorker();
    // Killed while the receiver holds the 4th request, before it answers.
    let inFlight: string | undefined;
    await new Promise<void>((resolve) => {
      receiver.state.onRequest = (r) => {
        if (receiver.state.received.length === 4 && !inFlight) {
          inFlight = r.headers['webhook-id'];
          first.kill('SIGKILL');
          resolve();
        }
      };
    });
    receiver.state.onRequest = () => undefined;
    await new Promise((resolve) => first.once('exit', resolve));
    const second = startWorker();
    try {
      const wanted = new Set(expected.map((e) => `evt_${e.position}`));
      await waitFor(() => [...wanted].every((id) => receiver.state.accepted.some((r) => r.headers['webhook-id'] === id)), 30_000);
    } finally {
      second.kill('SIGKILL');
    }
    const wh = new Webhook(endpoint.secret);
    for (const r of receiver.state.accepted) wh.verify(r.body, r.headers);
    // In order, once each, apart from the redelivered in-flight event.
    const ids = receiver.state.received.map((r) => r.headers['webhook-id']);
    expect(ids.filter((id) => id === inFlight).length).toBeGreaterThanOrEqual(2);
    const firstSeen = ids.filter((id, i) => ids.indexOf(id) === i);
    expect(firstSeen.slice(0, expected.length)).toEqual(expected.map((e) => `evt_${e.position}`));
  }, 90_000);
});

describe('examples/webhook-receiver.ts', () => {
  it('acknowledges a signed delivery and refuses one signed with another secret', async () => {
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const example = spawn(process.execPath, ['--import', 'tsx', path.join('examples', 'webhook-receiver.ts')], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve) =>
        example.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve()),
      );
      const body = JSON.stringify({
        type: 'report.created',
        timestamp: new Date().toISOString(),
        data: { cursor: 'x', position: '1', subject: 's', payload: {} },
      });
      const options = { timeoutMs: 2_000, allowPrivate: true };
      const good = await deliver(`http://127.0.0.1:${port}/hooks`, secret, { id: 'evt_1', body }, options);
      const forged = await deliver(
        `http://127.0.0.1:${port}/hooks`,
        `whsec_${Buffer.alloc(24, 8).toString('base64')}`,
        { id: 'evt_2', body },
        options,
      );
      expect([good.status, forged.status]).toEqual([204, 401]);
    } finally {
      example.kill('SIGKILL');
    }
  }, 30_000);
});
