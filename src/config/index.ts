/**
 * Configuration from the environment, read once. Every variable is documented in README.md and
 * .env.example.
 */
import path from 'node:path';

export interface AppConfig {
  port: number;
  host: string;
  /** PostgreSQL server; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl?: string;
  dataDir: string;
  pgPoolMax: number;
  appBaseUrl: string;
  /** Seed demo data into an empty database at start-up. */
  seedDemoData: boolean;
  logLevel: string;
  nodeEnv: string;
}

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

function flag(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return /^(1|true|yes|on)$/i.test(raw);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return {
    port: integer('PORT', 4000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    pgPoolMax: integer('PG_POOL_MAX', 10),
    appBaseUrl: (env.APP_BASE_URL || 'https://app.vehicle-report.example').replace(/\/+$/, ''),
    seedDemoData: flag('SEED_DEMO_DATA', true),
    logLevel: env.LOG_LEVEL || 'info',
    nodeEnv: env.NODE_ENV || 'development',
  };
}
