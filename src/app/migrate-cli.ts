/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the PGlite DATA_DIR. */
import { openDatabase } from '../platform/db/database';
import { applyMigrations } from '../platform/db/migrations/apply';
import { databaseOptionsFrom, loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(databaseOptionsFrom(config, { poolMax: 1 }));
  try {
    const result = await db.withSession((session) => applyMigrations(session));
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
