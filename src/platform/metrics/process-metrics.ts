/**
 * prom-client's default process and Node.js metrics (CPU, memory, event loop lag, GC...), and the
 * event loop's busy time, whose `rate()` the alert rules read (prom-client has no utilization).
 * They describe the process, not an app, and their collectors cannot be stopped: one registry per
 * process, made on first use, shared by every app's /metrics.
 */
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

export function processMetricsRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Counted at each scrape from Node's own measure.
    let counted = performance.eventLoopUtilization();
    new Counter({
      name: 'vr_event_loop_active_seconds_total',
      help: 'Seconds the event loop was busy (not waiting for I/O); rate() of it is the event-loop utilization, 0 to 1.',
      registers: [processRegistry],
      collect() {
        const now = performance.eventLoopUtilization();
        this.inc(Math.max(0, now.active - counted.active) / 1000);
        counted = now;
      },
    });
  }
  return processRegistry;
}
