import { serverDatabaseOptionsFrom, type AppConfig } from './config';
import type { Logger } from '../platform/logger';
import { seedDatabase, isDatabaseEmpty } from '../seed/seed-database';
import { openDatabase, type DatabaseOptions } from '../platform/db/database';
import { applyMigrations, pendingMigrations } from '../platform/db/migrations/apply';

/** The demo data this start seeded: its keys exist only here, to be printed once. */
export interface SeededDemo {
  keys: { key: string; organization: string }[];
  reports: number;
}

/**
 * Opens the configured database, applies pending migrations (unless MIGRATE_ON_START=false) and, on
 * an empty one, seeds demo data (`seeded`). `onQuery` sees every statement (the metrics time them).
 */
export async function prepareDatabase(config: AppConfig, logger: Logger, onQuery?: DatabaseOptions['onQuery']) {
  if (!config.databaseUrl) logger.info({ dataDir: config.dataDir }, 'using embedded PostgreSQL (PGlite)');
  const db = await openDatabase(serverDatabaseOptionsFrom(config, { onQuery }));
  const replicas = db.replicaStatus();
  if (replicas.length > 0) logger.info({ replicas }, 'read replicas for list and fetch reads');
  let migrated = true;
  if (config.migrateOnStart) {
    const { applied } = await db.withSession((session) => applyMigrations(session));
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  } else {
    // Another job migrates; /readyz stays 503 until it has.
    const pending = await db.withSession((session) => pendingMigrations(session));
    migrated = pending.length === 0;
    if (!migrated)
      logger.warn({ pending }, 'MIGRATE_ON_START=false and migrations are pending: not ready until `npm run db:migrate` has run');
  }
  if (migrated && config.seedDemoData && (await isDatabaseEmpty(db.prisma))) {
    const seeded = await seedDatabase(db.prisma);
    const keys = seeded.keys.map((k) => ({
      key: k.key,
      organization: seeded.organizations.find((o) => o.id === k.organization_id)?.name ?? k.organization_id,
    }));
    return { db, seeded: { keys, reports: seeded.reports } };
  }
  return { db };
}

/**
 * Printed once, on the start that seeded the data (the keys themselves are never stored), once the
 * server listens: its examples name the port it listens on, which PORT=0 leaves to the system.
 */
export function printDemoKeys(port: number, { keys, reports }: SeededDemo): void {
  const base = `http://localhost:${port}`;
  const lines = [
    '',
    `Demo data seeded (${reports} reports). Demo API keys — shown only now, keep them:`,
    ...keys.map((k) => `  ${k.organization.padEnd(24)} ${k.key}`),
    '',
    'Try:',
    `  curl -H 'x-api-key: ${keys[0]?.key}' '${base}/public/reports/?limit=2'`,
    `  curl -H 'x-api-key: ${keys[0]?.key}' '${base}/public/dealerships/'`,
    `  open ${base}/graphql (GraphiQL) and ${base}/docs (Swagger UI)`,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
