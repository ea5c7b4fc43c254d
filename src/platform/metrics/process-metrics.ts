/**
 * prom-client's default process and Node.js metrics (CPU, memory, event loop lag, GC...). They
 * describe the process, not an app, and their collectors (an event-loop delay timer, a GC
 * observer) cannot be stopped: one registry per process, made on first use, shared by every app's
 * /metrics.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

export function processMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
