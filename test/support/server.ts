/**
 * Starts the real application (express, Apollo, sofa) on an ephemeral port over a migrated and
 * seeded scratch database, for tests over real HTTP.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { loadConfig, type AppConfig } from '../../src/app/config';
import { openDatabase, type Database, type DatabaseKind } from '../../src/platform/db/database';
import type { ConcurrencyLimiter } from '../../src/platform/rate-limit/concurrency-limiter';
import type { RateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { buildDemoDataset, type DemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import { createApp } from '../../src/app/create-app';
import { createHttpServer, listen } from '../../src/platform/http/http-server';
import { createMigratedDatabase } from './databases';

export interface TestServer {
  url: string;
  /** The scratch database, connected directly (even when the app goes through `appDatabaseUrl`). */
  db: Database;
  /** postgresql:// URL of the scratch database (undefined on PGlite): a second process's view */
  databaseUrl?: string;
  config: AppConfig;
  dataset: DemoDataset;
  /** one API key per demo organization, in dataset order */
  keys: string[];
  /** SQL statements Prisma ran since the last `resetQueryLog()` */
  queries: string[];
  resetQueryLog(): void;
  close(): Promise<void>;
}

export async function startTestServer(
  kind: DatabaseKind,
  options: {
    reports?: number;
    config?: Partial<AppConfig>;
    /** Given to the app instead of the ones made from `config` (e.g. through Redis); the caller closes them. */
    rateLimits?: RateLimits;
    /** Given to the app instead of the one made from `config` (a test watches and holds its slots). */
    organizationSlots?: ConcurrencyLimiter;
    /**
     * PostgreSQL only: the app opens its own pool, with `config`'s pool settings, on the URL this
     * returns for the scratch database's (e.g. through a TCP proxy); seeding and `db` stay direct.
     */
    appDatabaseUrl?: (scratchUrl: string) => string;
  } = {},
): Promise<TestServer> {
  const queries: string[] = [];
  const { db, scratch, cleanup } = await createMigratedDatabase(kind, { onQuery: (e) => queries.push(e.query) });
  const dataset = buildDemoDataset({ reports: options.reports ?? 300 });
  const seeded = await seedDatabase(db.prisma, dataset);
  const defaults = loadConfig({});
  const config: AppConfig = {
    ...defaults,
    seedDemoData: false,
    nodeEnv: 'test',
    // Suites that are not about rate limits must never meet them (test/rate-limit sets its own).
    rateLimits: { ...defaults.rateLimits, requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 },
    // Nor the cap on one organization's requests in progress (test/abuse sets its own).
    organizationConcurrency: { limit: 1_000, maxQueued: 1_000, maxWaitMs: 30_000 },
    // Refusals answered at once, except where a test holds them (test/abuse).
    refusalDelayMs: 0,
    // Compilations as often as the tests send documents twice (test/abuse/compiled-documents sets its own).
    compileMsPerMinute: { organization: 1_000_000, total: 1_000_000 },
    ...options.config,
  };
  let appDb = db;
  if (options.appDatabaseUrl) {
    if (!scratch.url) throw new Error('appDatabaseUrl needs a PostgreSQL scratch database');
    appDb = await openDatabase({
      url: options.appDatabaseUrl(scratch.url),
      poolMax: config.pgPoolMax,
      connectionTimeoutMs: config.pgConnectionTimeoutMs,
      statementTimeoutMs: config.pgStatementTimeoutMs,
      onQuery: (e) => queries.push(e.query),
    });
  }
  const app = await createApp({ db: appDb, config, rateLimits: options.rateLimits, organizationSlots: options.organizationSlots });
  const server: Server = createHttpServer(app, { requestTimeoutMs: config.requestTimeoutMs });
  await listen(server, 0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    databaseUrl: scratch.url,
    config,
    dataset,
    keys: dataset.organizations.map((o) => seeded.keys.find((k) => k.organization_id === o.id)!.key),
    queries,
    resetQueryLog: () => {
      queries.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (appDb !== db) await appDb.close();
      await cleanup();
    },
  };
}

export async function graphql<T = Record<string, unknown>>(
  server: { url: string },
  query: string,
  variables: Record<string, unknown> = {},
  apiKey?: string,
): Promise<{ status: number; body: { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] } }> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as never };
}
