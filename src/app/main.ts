import 'reflect-metadata';
// First: tracing starts (from OTEL_* variables) before the modules it instruments load.
import '../platform/tracing/register';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { createHttpServer, listen } from '../platform/http/http-server';
import { configureLogging, logger } from '../platform/logger';
import { surviveUnhandledRejections } from '../platform/process-guard';
import { shutdownTracing, tracing } from '../platform/tracing/tracing';
import { createMetrics } from '../platform/metrics/metrics';
import { metricsEndpoint } from '../platform/metrics/metrics-router';
import { answerRefusal } from '../api/rest/rest-errors';
import { createRateLimits } from '../platform/rate-limit/rate-limiter';
import { assertSafeToServe, loadConfig } from './config';
import { createApp } from './create-app';
import { startDispatcher } from './dispatcher-from-config';
import { prepareDatabase, printDemoKeys } from './prepare-database';

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging({ level: config.logLevel });
  surviveUnhandledRejections(logger);
  assertSafeToServe(config);
  // Made before the database so that its statements are timed from the first one on.
  const metrics = createMetrics();
  const { db, seeded } = await prepareDatabase(config, logger, config.metrics.enabled ? metrics.observeQuery : undefined);
  let shuttingDown = false;
  const rateLimits = createRateLimits(config.rateLimits);
  const app = await createApp({ db, config, rateLimits, metrics, isShuttingDown: () => shuttingDown });
  const server = createHttpServer(app, { requestTimeoutMs: config.requestTimeoutMs });
  let port: number;
  try {
    port = await listen(server, config.port, config.host);
  } catch (error) {
    // The demo keys exist only in this process: a start that cannot listen still shows them.
    if (seeded) printDemoKeys(config.port, seeded);
    throw error;
  }
  logger.info({ port, database: db.kind, tracing: tracing.on }, `Vehicle Report API listening on http://localhost:${port}`);
  if (seeded) printDemoKeys(port, seeded);
  // /metrics on an internal port of its own, when configured: never reachable through the API's.
  let metricsServer: Server | undefined;
  if (config.metrics.enabled && config.metrics.port !== undefined) {
    metricsServer = createServer(express().use(metricsEndpoint(metrics, config.metrics.token, answerRefusal)));
    // A port already taken ends the start like the API's (`failed to start`), not with a stack trace.
    const bound = await listen(metricsServer, config.metrics.port, config.metrics.host);
    logger.info({ host: config.metrics.host, port: bound }, 'metrics served on their own port');
  }
  // In-process by default, so `npm start` alone delivers notifications (RUN_DISPATCHER=false: use `npm run worker`).
  const dispatcher = config.runDispatcher ? startDispatcher(db, config, logger, metrics) : undefined;

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal, delayMs: config.shutdownDelayMs }, 'shutting down');
    setTimeout(() => process.exit(1), config.shutdownDelayMs + Math.max(10_000, config.dispatcher.sendTimeoutMs + 5_000)).unref();
    // /readyz answers 503 from now on; keep serving until the load balancer has noticed.
    setTimeout(() => {
      metricsServer?.close();
      server.close(async () => {
        // The dispatcher finishes and records its batch before the database goes away.
        await dispatcher?.stop();
        await rateLimits.close();
        await db.close();
        await shutdownTracing();
        process.exit(0);
      });
    }, config.shutdownDelayMs);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
});
