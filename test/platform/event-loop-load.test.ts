/**
 * The event loop's recent utilization (src/platform/event-loop-load.ts), on the real loop: what
 * the concurrency limiter asks before giving a tenant fewer slots.
 */
import { BUSY_UTILIZATION, watchEventLoopLoad } from '../../src/platform/event-loop-load';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the loop running JavaScript for `share` of each 10 ms, for `ms`. */
async function spin(ms: number, share: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const until = performance.now() + 10 * share;
    while (performance.now() < until);
    await sleep(1);
  }
}

describe('event loop load', () => {
  it('reads an idle loop as under the busy mark and a loop running 90 % of the time as over it', async () => {
    const load = watchEventLoopLoad(20);
    try {
      await sleep(100);
      expect(load.utilization()).toBeLessThan(BUSY_UTILIZATION);
      await spin(120, 0.9);
      expect(load.utilization()).toBeGreaterThanOrEqual(BUSY_UTILIZATION);
      await sleep(100);
      expect(load.utilization()).toBeLessThan(BUSY_UTILIZATION);
    } finally {
      load.stop();
    }
  });
});
