/**
 * The per-key cap itself (src/platform/rate-limit/concurrency-limiter.ts): first come first
 * served, a bounded line, a bounded wait, and no slot counted twice or lost; while the event loop
 * is busy and shared by several keys, each key's stricter cap (`whenBusy`).
 */
import { createConcurrencyLimiter, SHARED_WINDOW_MS, type SlotRequest } from '../../src/platform/rate-limit/concurrency-limiter';

const admitted = (request: SlotRequest) => {
  if (!request.admitted) throw new Error(`refused: ${request.reason}`);
  return request;
};

describe('concurrency limiter', () => {
  it('serves waiting requests in arrival order, each key on its own', async () => {
    const limiter = createConcurrencyLimiter({ limit: 1, maxQueued: 3, maxWaitMs: 60_000 });
    const first = admitted(await limiter.acquire('a'));
    const order: number[] = [];
    const waiting = [1, 2, 3].map((n) => limiter.acquire('a').then((slot) => (order.push(n), admitted(slot))));
    // Another key is not behind them.
    admitted(await limiter.acquire('b')).release();
    expect(limiter.usage('a')).toEqual({ running: 1, queued: 3 });
    first.release();
    (await waiting[0]!).release();
    (await waiting[1]!).release();
    (await waiting[2]!).release();
    expect(order).toEqual([1, 2, 3]);
    expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
  });

  it('refuses at once when the line is full, and after maxWaitMs in it', async () => {
    const limiter = createConcurrencyLimiter({ limit: 1, maxQueued: 1, maxWaitMs: 50 });
    const slot = admitted(await limiter.acquire('a'));
    const late = limiter.acquire('a');
    expect(await limiter.acquire('a')).toEqual({ admitted: false, reason: 'full' });
    expect(await late).toEqual({ admitted: false, reason: 'timeout' });
    expect(limiter.usage('a')).toEqual({ running: 1, queued: 0 });
    slot.release();
    expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
  });

  it('takes an aborted waiter out of the line, and ignores a second release', async () => {
    const limiter = createConcurrencyLimiter({ limit: 1, maxQueued: 2, maxWaitMs: 60_000 });
    const slot = admitted(await limiter.acquire('a'));
    const client = new AbortController();
    const leaving = limiter.acquire('a', client.signal);
    const staying = limiter.acquire('a');
    client.abort();
    expect(await leaving).toEqual({ admitted: false, reason: 'aborted' });
    slot.release();
    slot.release();
    const next = admitted(await staying);
    expect(limiter.usage('a')).toEqual({ running: 1, queued: 0 });
    next.release();
    expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
  });

  it('has no cap when the limit is 0', async () => {
    const limiter = createConcurrencyLimiter({ limit: 0, maxQueued: 0, maxWaitMs: 0 });
    const slots = await Promise.all(Array.from({ length: 100 }, () => limiter.acquire('a')));
    expect(slots.every((s) => s.admitted)).toBe(true);
  });

  describe('while the event loop is busy', () => {
    const settings = { limit: 4, maxQueued: 8, maxWaitMs: 60_000, whenBusy: 1 };
    /** A limiter whose loop is busy while `state.busy`, on a clock the test moves. */
    const limiterWith = (state: { busy: boolean; now: number }, overrides: Partial<typeof settings> = {}) =>
      createConcurrencyLimiter({ ...settings, ...overrides }, { busy: () => state.busy, now: () => state.now });

    it('gives each key `whenBusy` slots while another key asked within SHARED_WINDOW_MS', async () => {
      const state = { busy: true, now: 0 };
      const limiter = limiterWith(state);
      const a1 = admitted(await limiter.acquire('a'));
      const b1 = admitted(await limiter.acquire('b'));
      const a2 = limiter.acquire('a');
      const b2 = limiter.acquire('b');
      expect(limiter.usage('a')).toEqual({ running: 1, queued: 1 });
      expect(limiter.usage('b')).toEqual({ running: 1, queued: 1 });
      // Each release starts the next in line: one running per key, in arrival order.
      b1.release();
      admitted(await b2).release();
      expect(limiter.usage('b')).toEqual({ running: 0, queued: 0 });
      // 'b' has nothing in progress, but asked lately: 'a' still gets one slot at a time.
      const a3 = limiter.acquire('a');
      expect(limiter.usage('a')).toEqual({ running: 1, queued: 2 });
      a1.release();
      const second = admitted(await a2);
      expect(limiter.usage('a')).toEqual({ running: 1, queued: 1 });
      // Two windows later 'a' is alone: its whole limit, also on a busy loop.
      state.now += 2 * SHARED_WINDOW_MS;
      const fourth = admitted(await limiter.acquire('a'));
      const third = admitted(await a3);
      expect(limiter.usage('a')).toEqual({ running: 3, queued: 0 });
      for (const slot of [second, third, fourth]) slot.release();
      expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
    });

    it('keeps the whole limit on an idle loop, whoever else is there', async () => {
      const limiter = limiterWith({ busy: false, now: 0 });
      const b = admitted(await limiter.acquire('b'));
      const slots = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire('a')));
      expect(slots.every((slot) => slot.admitted)).toBe(true);
      const fifth = limiter.acquire('a');
      expect(limiter.usage('a')).toEqual({ running: 4, queued: 1 });
      b.release();
      for (const slot of slots) if (slot.admitted) slot.release();
      admitted(await fifth).release();
      expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
    });

    it('starts no waiter while a key is over its busy cap, and strands none', async () => {
      const state = { busy: false, now: 0 };
      const limiter = limiterWith(state);
      const running = await Promise.all([1, 2, 3].map(() => limiter.acquire('a').then(admitted)));
      state.busy = true;
      const b = admitted(await limiter.acquire('b'));
      let started = false;
      const waiting = limiter.acquire('a').then((slot) => ((started = true), admitted(slot)));
      running[0]!.release();
      running[1]!.release();
      await Promise.resolve();
      // Two of three ended: 'a' still has 1 running, its busy cap; the waiter stays in line.
      expect(started).toBe(false);
      expect(limiter.usage('a')).toEqual({ running: 1, queued: 1 });
      running[2]!.release();
      const last = await waiting;
      expect(limiter.usage('a')).toEqual({ running: 1, queued: 0 });
      last.release();
      b.release();
      expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
      expect(limiter.usage('b')).toEqual({ running: 0, queued: 0 });
    });

    it('lets nobody overtake a waiter when the loop turns idle', async () => {
      const state = { busy: true, now: 0 };
      // A limit of 2: once the loop is idle there is room for one more, and it is the waiter's.
      const limiter = limiterWith(state, { limit: 2 });
      admitted(await limiter.acquire('b'));
      const first = admitted(await limiter.acquire('a'));
      let newcomerStarted = false;
      const waiter = limiter.acquire('a');
      state.busy = false;
      const newcomer = limiter.acquire('a').then((slot) => ((newcomerStarted = true), admitted(slot)));
      expect(limiter.usage('a')).toEqual({ running: 2, queued: 1 });
      const second = admitted(await waiter);
      expect(newcomerStarted).toBe(false);
      first.release();
      (await newcomer).release();
      second.release();
      expect(limiter.usage('a')).toEqual({ running: 0, queued: 0 });
    });

    it('is off with whenBusy 0', async () => {
      const limiter = limiterWith({ busy: true, now: 0 }, { whenBusy: 0 });
      const b = admitted(await limiter.acquire('b'));
      const slots = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire('a')));
      expect(slots.every((slot) => slot.admitted)).toBe(true);
      for (const slot of [b, ...slots]) if (slot.admitted) slot.release();
    });
  });
});
