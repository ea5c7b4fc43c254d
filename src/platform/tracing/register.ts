/**
 * Imported first by the entry points (app/main.ts, app/worker.ts): starts tracing from the
 * environment before any other module loads, so that the ioredis instrumentation sees ioredis
 * loaded. Without `OTEL_*` variables it loads nothing beyond `@opentelemetry/api`.
 */
import { startTracing } from './tracing';

startTracing(process.env);
