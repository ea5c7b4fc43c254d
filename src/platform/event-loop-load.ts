/**
 * How busy the event loop has been lately: its utilization (the share of time spent running
 * callbacks rather than waiting for I/O) over the last sampling interval. The concurrency limiter
 * asks it whether to share the loop more strictly between tenants: on a busy loop, how many
 * requests each tenant has in flight decides how long the others wait behind their tasks.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Short enough that a burst is seen within a few of its requests; the sample itself costs ~1 µs. */
const SAMPLE_INTERVAL_MS = 25;

/** Busy from here on: half of the loop's time running means a request arriving now most likely waits behind another's task. */
export const BUSY_UTILIZATION = 0.5;

export interface EventLoopLoad {
  /** utilization of the last interval, 0..1 */
  utilization(): number;
  stop(): void;
}

/** Samples every `intervalMs` (the timer does not keep the process alive). */
export function watchEventLoopLoad(intervalMs = SAMPLE_INTERVAL_MS): EventLoopLoad {
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  let last = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    last = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
  }, intervalMs).unref();
  return { utilization: () => last, stop: () => clearInterval(timer) };
}

let shared: EventLoopLoad | undefined;

/** Whether this process's event loop is busy (one watcher per process: there is one loop). */
export function eventLoopBusy(): boolean {
  shared ??= watchEventLoopLoad();
  return shared.utilization() >= BUSY_UTILIZATION;
}
