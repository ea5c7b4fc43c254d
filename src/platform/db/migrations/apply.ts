/**
 * Applies prisma/migrations the way `prisma migrate deploy` does, without Prisma's native engine
 * (not downloadable offline): same directory layout, same `_prisma_migrations` table and checksum
 * (SHA-256 hex of migration.sql), same advisory lock key, so Prisma's own `migrate status` agrees.
 * Unlike Prisma, each migration runs in a transaction: a failing one leaves nothing behind.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../project-root';
import type { SqlSession } from '../database';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma', 'migrations');

/** The key prisma-engines uses (flavour/postgres.rs), so Prisma and this applier exclude each other. */
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql, 'utf8').digest('hex');
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    });
}

export async function applyMigrations(session: SqlSession, migrations = readMigrations()): Promise<MigrationResult> {
  await session.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
  try {
    await session.exec(CREATE_MIGRATIONS_TABLE);
    const rows = await session.query<{ migration_name: string; checksum: string; finished_at: Date | string | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const unfinished = rows.find((row) => row.finished_at === null);
    if (unfinished) {
      throw new Error(`migration ${unfinished.migration_name} was started and never finished; resolve it before applying more`);
    }
    const done = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const recorded = done.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new Error(`migration ${migration.name} was modified after it was applied (checksum differs)`);
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      await session.exec('BEGIN');
      try {
        await session.exec(migration.sql);
        await session.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await session.exec('COMMIT');
      } catch (error) {
        await session.exec('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await session.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
  }
}

/** Names of migrations in prisma/migrations not yet recorded as applied (empty = up to date). */
export async function pendingMigrations(session: SqlSession, migrations = readMigrations()): Promise<string[]> {
  const table = await session.query<{ exists: boolean }>(`SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS exists`);
  if (!table[0]?.exists) return migrations.map((m) => m.name);
  const rows = await session.query<{ migration_name: string }>(
    'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const applied = new Set(rows.map((row) => row.migration_name));
  return migrations.filter((m) => !applied.has(m.name)).map((m) => m.name);
}
