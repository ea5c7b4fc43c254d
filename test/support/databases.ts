/**
 * Every database test runs twice: on PGlite (in memory) and on the PostgreSQL server named by
 * TEST_DATABASE_URL, each time in a database created for it and dropped afterwards.
 */
import { openDatabase, type Database, type DatabaseKind, type DatabaseOptions } from '../../src/platform/db/database';
import { applyMigrations } from '../../src/platform/db/migrations/apply';
import { adminQueryAt, scratchDatabaseName } from './scratch-databases';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/test';

export const DATABASE_KINDS: DatabaseKind[] = ['pglite', 'postgres'];

export interface TestDatabase {
  kind: DatabaseKind;
  /** postgresql:// URL of the scratch database (undefined on PGlite) */
  url?: string;
  open(options?: Omit<DatabaseOptions, 'url' | 'dataDir'>): Promise<Database>;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  await adminQueryAt(TEST_DATABASE_URL, sql);
}

/** A fresh, empty scratch database (no migrations applied). */
export async function createScratchDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    return { kind, open: (options) => openDatabase({ ...options, dataDir: 'memory://' }), drop: async () => undefined };
  }
  const name = scratchDatabaseName();
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.toString(),
    open: (options) => openDatabase({ ...options, url: url.toString() }),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A migrated database, open, plus its cleanup. */
export async function createMigratedDatabase(
  kind: DatabaseKind,
  options?: Omit<DatabaseOptions, 'url' | 'dataDir'>,
): Promise<{ db: Database; scratch: TestDatabase; cleanup(): Promise<void> }> {
  const scratch = await createScratchDatabase(kind);
  const db = await scratch.open(options);
  await db.withSession((session) => applyMigrations(session));
  return {
    db,
    scratch,
    async cleanup() {
      await db.close();
      await scratch.drop();
    },
  };
}
