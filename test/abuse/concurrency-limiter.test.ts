/**
 * The per-key cap itself (src/platform/rate-limit/concurrency-limiter.ts): first come first
 * served, a bounded line, a bounded wait, and no slot counted twice or lost.
 */
import { createConcurrencyLimiter, type SlotRequest } from '../../src/platform/rate-limit/concurrency-limiter';

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
});
