/**
 * Child process: the real application (src/app/create-app.ts) on PostgreSQL, on an ephemeral port,
 * wired as src/app/main.ts wires it (pool limits, metrics timing every statement, the HTTP server's
 * limits). A process of its own so that its RSS is measured alone. Tells the parent its port over IPC.
 *
 * The benchmarks run it compiled as the image runs the service (bench/measure.ts, `compiledServer`,
 * into bench/.build/). Run alone, it is the way to profile the app under load:
 *   DATABASE_URL=postgresql://…/vr_bench_… PORT=4555 RATE_LIMIT_PER_MINUTE=1000000000 LOG_LEVEL=warn \
 *     node --cpu-prof bench/.build/out/bench/app-server.js
 * (after a benchmark compiled it; `node --import tsx --cpu-prof bench/app-server.ts` runs the
 * TypeScript, whose transform adds its own cost to every request)
 * prints an API key of the organization with the most reports; load it (autocannon), then Ctrl-C:
 * the .cpuprofile is written on exit (open it in Chrome DevTools, or print its tables with
 * `npx tsx bench/profile-summary.ts <file> [top] [pattern …]`).
 */
import 'reflect-metadata';
// First, as in src/app/main.ts: tracing from OTEL_* variables (none: off, the SDK not loaded).
import '../src/platform/tracing/register';
import { issueApiKey } from '../src/features/auth/api-keys';
import { loadConfig } from '../src/app/config';
import { openDatabase } from '../src/platform/db/database';
import { createMetrics } from '../src/platform/metrics/metrics';
import { createApp } from '../src/app/create-app';
import { createHttpServer, listen } from '../src/platform/http/http-server';
import { logger } from '../src/platform/logger';
import { surviveUnhandledRejections } from '../src/platform/process-guard';

/** BENCH_LAG_MS=N: prints each stall of the event loop longer than N ms (when, how long), to find what a slow answer waited for. */
function reportStalls(thresholdMs: number): void {
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last - 10 > thresholdMs)
      console.error(`event loop stalled ${(now - last - 10).toFixed(0)} ms at ${new Date().toISOString()}`);
    last = now;
  }, 10).unref();
}

async function main(): Promise<void> {
  if (process.env.BENCH_LAG_MS) reportStalls(Number(process.env.BENCH_LAG_MS));
  const config = { ...loadConfig(process.env), seedDemoData: false };
  surviveUnhandledRejections(logger);
  const metrics = createMetrics();
  const db = await openDatabase({
    url: process.env.DATABASE_URL!,
    poolMax: config.pgPoolMax,
    connectionTimeoutMs: config.pgConnectionTimeoutMs,
    statementTimeoutMs: config.pgStatementTimeoutMs,
    onQuery: config.metrics.enabled ? metrics.observeQuery : undefined,
  });
  const app = await createApp({ db, config, metrics });
  const server = createHttpServer(app, { requestTimeoutMs: config.requestTimeoutMs });
  // process.exit runs the --cpu-prof writer (bench/abuse.ts stops its servers with SIGTERM).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
  if (process.send) {
    process.send({ port: await listen(server, 0, '127.0.0.1') });
    process.on('disconnect', () => process.exit(0));
    return;
  }
  const [largest] = await db.prisma.$queryRaw<{ organization_id: string }[]>`
    SELECT organization_id FROM reports GROUP BY organization_id ORDER BY count(*) DESC LIMIT 1`;
  const key = (await issueApiKey(db.prisma, largest!.organization_id, 'profile', 'bench')).key;
  console.log(`listening on ${await listen(server, config.port, '127.0.0.1')}, API key ${key}`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
