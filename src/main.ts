import 'reflect-metadata';
import { createServer } from 'node:http';
import { loadConfig } from './config';
import { prepareDatabase } from './db/bootstrap';
import { logger } from './logger';
import { startDispatcher, type RunningDispatcher } from './notifications/dispatcher-from-config';
import { createRateLimits } from './rate-limit/rate-limiter';
import { createApp } from './server/app';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await prepareDatabase(config, logger);
  let shuttingDown = false;
  const rateLimits = createRateLimits(config.rateLimits);
  const app = await createApp({ db, config, rateLimits, isShuttingDown: () => shuttingDown });
  const server = createServer(app);
  server.listen(config.port, config.host, () => {
    logger.info({ port: config.port, database: db.kind }, `Vehicle Report API listening on http://localhost:${config.port}`);
  });
  // In-process by default, so `npm start` alone delivers notifications (RUN_DISPATCHER=false: use `npm run worker`).
  const dispatcher: RunningDispatcher | undefined = config.runDispatcher ? startDispatcher(db, config, logger) : undefined;

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), Math.max(10_000, config.dispatcher.sendTimeoutMs + 5_000));
    force.unref();
    server.close(async () => {
      // The dispatcher finishes and records its batch before the database goes away.
      await dispatcher?.stop();
      await rateLimits.close();
      await db.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
