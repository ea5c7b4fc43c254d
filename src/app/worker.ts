/**
 * Standalone outbox dispatcher (`npm run worker`): for deployments that run the API with
 * RUN_DISPATCHER=false and deliver notifications from separate processes. Any number of workers
 * may run against the same PostgreSQL database. With PGlite the data folder belongs to one process:
 * keep the dispatcher inside `npm start` instead.
 */
import 'reflect-metadata';
// First: tracing starts (from OTEL_* variables) before the modules it instruments load.
import '../platform/tracing/register';
import { openDatabase } from '../platform/db/database';
import { configureLogging, logger } from '../platform/logger';
import { shutdownTracing } from '../platform/tracing/tracing';
import { surviveUnhandledRejections } from '../platform/process-guard';
import { databaseOptionsFrom, loadConfig } from './config';
import { startDispatcher } from './dispatcher-from-config';

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging({ level: config.logLevel });
  surviveUnhandledRejections(logger);
  if (!config.databaseUrl) {
    logger.warn(
      { dataDir: config.dataDir },
      'no DATABASE_URL: the worker opens the PGlite folder, which the API must not have open at the same time',
    );
  }
  // The API applies migrations at start-up; the worker only needs the tables to exist.
  const db = await openDatabase(databaseOptionsFrom(config, { poolMax: Math.min(config.pgPoolMax, 4) }));
  const running = startDispatcher(db, config, logger);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping after the current batch');
    setTimeout(() => process.exit(1), config.dispatcher.sendTimeoutMs + 10_000).unref();
    await running.stop();
    await db.close();
    await shutdownTracing();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'worker failed to start');
  process.exit(1);
});
