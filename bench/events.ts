/**
 * `npm run bench:events`: the change feed and its webhooks under a steady write load, on a scratch
 * PostgreSQL database. A writer updates reports by plain SQL at --rate statements/s (one
 * `report.updated` event each) for --duration seconds; a dispatcher in this process delivers them
 * to --endpoints receivers on loopback (each verifies the signature), and an API instance in this
 * process pushes them to --subscribers GraphQL subscriptions (graphql-ws clients on loopback).
 * Prints events/s written and delivered and the lag from the event's transaction to the receiver
 * and to the subscriber, p50/p95/max.
 *
 *   --rate N          writes per second (default 100)
 *   --endpoints N     webhook endpoints, each receiving every event (default 10)
 *   --subscribers N   GraphQL subscriptions `events(after:)`, each receiving every event (default 10)
 *   --duration S      seconds of writing (default 20)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { loadConfig, type AppConfig } from '../src/app/config';
import { createApp } from '../src/app/create-app';
import { currentFeedEnd } from '../src/features/events/event-stream';
import { createHttpServer } from '../src/platform/http/http-server';
import { openDatabase } from '../src/platform/db/database';
import { applyMigrations } from '../src/platform/db/migrations/apply';
import { buildDemoDataset } from '../src/seed/dataset';
import { seedDatabase } from '../src/seed/seed-database';
import { WebhookDispatcher } from '../src/features/webhooks/webhook-dispatcher';
import { createWebhookEndpoint } from '../src/features/webhooks/webhooks.service';
import { logger } from '../src/platform/logger';
import { ADMIN_URL, adminQuery, log, percentile } from './support';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rate: { type: 'string' }, endpoints: { type: 'string' }, subscribers: { type: 'string' }, duration: { type: 'string' } },
  });
  const subscriberCount = Number(values.subscribers ?? 10);
  const rate = Number(values.rate ?? 100);
  const endpointCount = Number(values.endpoints ?? 10);
  const durationS = Number(values.duration ?? 20);

  const name = `vr_bench_events_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), poolMax: 10, connectionTimeoutMs: 30_000 });
  const lags: number[] = [];
  let delivered = 0;
  let badSignatures = 0;
  const secrets = new Map<string, Webhook>();
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = secrets.get(request.url ?? '')!.verify(body, request.headers as Record<string, string>) as { timestamp: string };
        lags.push(Date.now() - Date.parse(event.timestamp));
        delivered += 1;
      } catch {
        badSignatures += 1;
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  let written = 0;
  let dispatcher: WebhookDispatcher | undefined;
  let api: http.Server | undefined;
  const clients: Client[] = [];
  const pushLags: number[] = [];
  try {
    await db.withSession((s) => applyMigrations(s));
    const seeded = await seedDatabase(db.prisma, buildDemoDataset({ reports: 200 }));
    const organizationId = (await db.prisma.organization.findFirstOrThrow({ orderBy: { created_at: 'asc' } })).id;
    const apiKey = seeded.keys.find((k) => k.organization_id === organizationId)!.key;
    const tokens = (await db.prisma.report.findMany({ where: { organization_id: organizationId }, select: { token: true } })).map(
      (r) => r.token,
    );
    for (let i = 0; i < endpointCount; i++) {
      const endpoint = await createWebhookEndpoint(
        db.prisma,
        organizationId,
        { url: `http://127.0.0.1:${port}/e${i}`, types: 'report.updated' },
        { allowPrivate: true },
      );
      secrets.set(`/e${i}`, new Webhook(endpoint.secret));
    }
    dispatcher = new WebhookDispatcher(
      db.prisma,
      {
        pollIntervalMs: 50,
        batchSize: endpointCount,
        eventsPerClaim: 50,
        leaseMs: 300_000,
        timeoutMs: 5_000,
        maxAttempts: 10,
        backoffBaseMs: 1_000,
        backoffMaxMs: 10_000,
        allowPrivateAddresses: true,
      },
      logger,
    );
    dispatcher.start();

    // The API's subscriptions, on the same database (its own pool, as a separate instance would).
    const defaults = loadConfig({});
    const config: AppConfig = { ...defaults, nodeEnv: 'test', seedDemoData: false, metrics: { ...defaults.metrics, enabled: false } };
    const apiDb = await openDatabase({ url: url.toString(), poolMax: 10, connectionTimeoutMs: 30_000 });
    api = createHttpServer(await createApp({ db: apiDb, config }), { requestTimeoutMs: config.requestTimeoutMs });
    api.on('close', () => void apiDb.close());
    await new Promise<void>((resolve) => api!.listen(0, '127.0.0.1', resolve));
    const wsUrl = `ws://127.0.0.1:${(api.address() as AddressInfo).port}/graphql`;
    const after = await currentFeedEnd(db.prisma);
    let pushed = 0;
    for (let i = 0; i < subscriberCount; i++) {
      const client = createClient({ url: wsUrl, webSocketImpl: WebSocket, connectionParams: { 'x-api-key': apiKey }, retryAttempts: 0 });
      clients.push(client);
      client.subscribe<{ events: { occurred_at: string } }>(
        {
          query: 'subscription($after: String) { events(after: $after, types: ["report.updated"]) { cursor occurred_at } }',
          variables: { after },
        },
        {
          next: (result) => {
            if (!result.data) return log(`subscription error: ${JSON.stringify(result.errors)}`);
            pushLags.push(Date.now() - Date.parse(result.data.events.occurred_at));
            pushed += 1;
          },
          error: (error) => log(`subscription failed: ${String((error as { reason?: string }).reason ?? error)}`),
          complete: () => undefined,
        },
      );
    }
    const pushedExpected = () => written * subscriberCount;

    log(`writing ${rate}/s for ${durationS} s, ${endpointCount} endpoints, ${subscriberCount} subscriptions`);
    const started = Date.now();
    while (Date.now() - started < durationS * 1000) {
      const due = Math.floor(((Date.now() - started) / 1000) * rate);
      const writes: Promise<unknown>[] = [];
      for (; written < due; written++) {
        writes.push(
          db.prisma.$executeRawUnsafe(
            `UPDATE reports SET data = jsonb_set(data, '{metadata,bench}', to_jsonb($2::int)) WHERE token = $1::uuid`,
            tokens[written % tokens.length]!,
            written,
          ),
        );
      }
      await Promise.all(writes);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const writeSeconds = (Date.now() - started) / 1000;
    const expected = written * endpointCount;
    const deadline = Date.now() + 30_000;
    while ((delivered < expected || pushed < pushedExpected()) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const totalSeconds = (Date.now() - started) / 1000;
    lags.sort((a, b) => a - b);
    pushLags.sort((a, b) => a - b);
    const result = {
      events_written: written,
      events_per_s_written: Math.round(written / writeSeconds),
      deliveries: delivered,
      deliveries_expected: expected,
      deliveries_per_s: Math.round(delivered / totalSeconds),
      bad_signatures: badSignatures,
      lag_ms_p50: percentile(lags, 50),
      lag_ms_p95: percentile(lags, 95),
      lag_ms_max: lags.at(-1) ?? null,
      subscription_pushes: pushed,
      subscription_pushes_expected: pushedExpected(),
      subscription_lag_ms_p50: percentile(pushLags, 50),
      subscription_lag_ms_p95: percentile(pushLags, 95),
      subscription_lag_ms_max: pushLags.at(-1) ?? null,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    if (api) await new Promise<void>((resolve) => api!.close(() => resolve()));
    await dispatcher?.stop();
    receiver.closeAllConnections();
    receiver.close();
    await db.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  log(String(error instanceof Error ? error.stack : error));
  process.exit(1);
});
