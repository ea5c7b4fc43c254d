import { Router } from 'express';
import type { Database } from '../db/database';
import { pendingMigrations } from '../db/migrations/apply';

/**
 * How long /readyz waits for the primary. A pooler (PgBouncer) queues a query while it has no
 * server to send it to, for up to its query_wait_timeout: during a failover the check must say
 * "not ready" rather than wait with the queue. HAProxy's check interval (deploy/haproxy.cfg, 2 s).
 * PGlite (one process, no failover) is not bounded: a long query there delays, not fails, the check.
 */
export const READY_CHECK_TIMEOUT_MS = 2_000;

/** Rejects when `work` takes longer than `ms` (the work itself goes on, its result ignored). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * /healthz: the process is up. /readyz: a primary answers (quickly, and is not in recovery: a
 * demoted node reached through an old connection is not a primary) and every migration is
 * applied (and the instance is not shutting down).
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
      const check = db.prisma.$queryRaw<{ recovery: boolean }[]>`SELECT pg_is_in_recovery() AS recovery`;
      const [row] = db.kind === 'postgres' ? await within(check, READY_CHECK_TIMEOUT_MS) : await check;
      checks.database = row?.recovery === false;
      if (checks.database && !migrationsApplied) {
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
