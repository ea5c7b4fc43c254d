import { Router } from 'express';
import type { Database } from '../db/database';
import { pendingMigrations } from '../db/migrations/apply';

/**
 * /healthz: the process is up. /readyz: the database answers and every migration is applied
 * (and the instance is not shutting down).
 */
export function healthRoutes(db: Database, isShuttingDown: () => boolean = () => false): Router {
  const router = Router();
  let migrationsApplied = false;

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const checks = { database: false, migrations: migrationsApplied, shutting_down: isShuttingDown() };
    try {
      await db.prisma.$queryRaw`SELECT 1`;
      checks.database = true;
      if (!migrationsApplied) {
        migrationsApplied = (await db.withSession((session) => pendingMigrations(session))).length === 0;
        checks.migrations = migrationsApplied;
      }
    } catch {
      // reported through the checks below
    }
    const ready = checks.database && checks.migrations && !checks.shutting_down;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });

  return router;
}
