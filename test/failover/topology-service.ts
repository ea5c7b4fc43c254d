/**
 * The service on the Patroni topology, as the failover tests run it (patroni.test.ts,
 * nemeses.test.ts): its database through PgBouncer with reads on the replicas' port, fast
 * dispatchers, no rate limit in the way; and the data they write against, migrated and seeded
 * through HAProxy's primary port as `npm run db:migrate` does with DATABASE_DIRECT_URL.
 */
import type { Express } from 'express';
import { loadConfig, type AppConfig } from '../../src/app/config';
import { createApp } from '../../src/app/create-app';
import { startDispatcher, type RunningDispatcher } from '../../src/app/dispatcher-from-config';
import { openDatabase, type Database } from '../../src/platform/db/database';
import { applyMigrations } from '../../src/platform/db/migrations/apply';
import { logger } from '../../src/platform/logger';
import { buildDemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import type { PatroniTopology } from '../../loadtest/patroni-topology';

/** Migrates and seeds `reports` demo reports; the first organization's key and dealership, its lead quota set to `quota`. */
export async function seedTopology(
  topology: PatroniTopology,
  options: { reports: number; quota: number },
): Promise<{ apiKey: string; dealershipId: string }> {
  const direct = await openDatabase({ url: topology.primaryUrl, poolMax: 2 });
  try {
    await direct.withSession((session) => applyMigrations(session));
    const dataset = buildDemoDataset({ reports: options.reports });
    const seeded = await seedDatabase(direct.prisma, dataset);
    const organization = dataset.organizations[0]!;
    const dealership = dataset.dealerships.find((d) => d.organization_id === organization.id)!;
    await direct.prisma.entity.update({
      where: { id: dealership.entity_id },
      data: { remote_quota: options.quota, remote_quota_used: 0, quota_period_start: new Date(), quota_period_months: 1 },
    });
    return { apiKey: seeded.keys.find((k) => k.organization_id === organization.id)!.key, dealershipId: dealership.id };
  } finally {
    await direct.close();
  }
}

/** One instance's database, configuration, dispatchers and Express app (not yet listening). */
export async function topologyService(
  topology: PatroniTopology,
  options: { dataDir: string; requestTimeoutMs: number; label: string },
): Promise<{ db: Database; config: AppConfig; dispatcher: RunningDispatcher; app: Express }> {
  const db = await openDatabase({
    url: topology.pgbouncerUrl,
    directUrl: topology.primaryUrl,
    replicaUrls: [topology.replicasUrl],
    replicaCheckIntervalMs: 250,
    poolMax: 5,
    connectionTimeoutMs: 2_000,
    statementTimeoutMs: options.requestTimeoutMs,
  });
  const defaults = loadConfig({});
  const config: AppConfig = {
    ...defaults,
    seedDemoData: false,
    nodeEnv: 'test',
    dataDir: options.dataDir,
    requestTimeoutMs: options.requestTimeoutMs,
    refusalDelayMs: 0,
    rateLimits: { ...defaults.rateLimits, requestsPerMinute: 1_000_000, leadsPerMinute: 1_000_000, anonymousPerMinute: 1_000_000 },
    organizationConcurrency: { limit: 1_000, maxQueued: 1_000, maxWaitMs: 30_000 },
    dispatcher: {
      ...defaults.dispatcher,
      pollIntervalMs: 200,
      leaseMs: 5_000,
      sendTimeoutMs: 2_000,
      backoffBaseMs: 200,
      backoffMaxMs: 1_000,
    },
  };
  const dispatcher = startDispatcher(db, config, logger.child({ test: options.label }));
  return { db, config, dispatcher, app: await createApp({ db, config }) };
}
