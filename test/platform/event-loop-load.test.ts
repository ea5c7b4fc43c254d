/**
 * The event loop's recent utilization (src/platform/event-loop-load.ts), on the real loop: what
 * the concurrency limiter asks before giving a tenant fewer slots.
 *
 * Each reading covers one short interval, and on a loaded machine any single interval may hold a
 * garbage collection of this worker's heap or a late timer: so each state is awaited (read every
 * few milliseconds for up to two seconds) rather than read once. A watcher stuck at 0 or at 1
 * still fails, as one that does not follow the loop's state does.
 */
import { BUSY_UTILIZATION, watchEventLoopLoad, type EventLoopLoad } from '../../src/platform/event-loop-load';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PATIENCE_MS = 2_000;

/** Sleeps in short steps until `reached` holds of a reading; the readings seen, for the failure message. */
async function idleUntil(load: EventLoopLoad, reached: (utilization: number) => boolean): Promise<number[]> {
  const readings: number[] = [];
  const end = performance.now() + PATIENCE_MS;
  while (performance.now() < end) {
    await sleep(30);
    readings.push(load.utilization());
    if (reached(readings.at(-1)!)) break;
  }
  return readings;
}

/** Keeps the loop running JavaScript for `share` of each 10 ms until a reading reaches the busy mark. */
async function spinUntilBusy(load: EventLoopLoad, share: number): Promise<number[]> {
  const readings: number[] = [];
  const end = performance.now() + PATIENCE_MS;
  while (performance.now() < end) {
    const until = performance.now() + 10 * share;
    while (performance.now() < until);
    await sleep(1);
    readings.push(load.utilization());
    // At least ~12 turns (~120 ms): the reading then covers the spinning, not the idle before it.
    if (readings.length >= 12 && readings.at(-1)! >= BUSY_UTILIZATION) break;
  }
  return readings;
}

describe('event loop load', () => {
  it('reads an idle loop as under the busy mark and a loop running 90 % of the time as over it', async () => {
    const load = watchEventLoopLoad(20);
    const under = (utilization: number) => utilization < BUSY_UTILIZATION;
    try {
      expect((await idleUntil(load, under)).at(-1)).toBeLessThan(BUSY_UTILIZATION);
      expect((await spinUntilBusy(load, 0.9)).at(-1)).toBeGreaterThanOrEqual(BUSY_UTILIZATION);
      expect((await idleUntil(load, under)).at(-1)).toBeLessThan(BUSY_UTILIZATION);
    } finally {
      load.stop();
    }
  });
});
