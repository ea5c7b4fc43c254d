/**
 * At most `limit` requests of one key (an organization) in progress at once in this process; the
 * excess waits in a short FIFO line for a slot, and is refused when the line is full or its wait
 * is over. The rate limit bounds what a tenant spends per minute, not how much of the process it
 * holds at one instant: without this, one tenant's parallel requests fill the event loop and the
 * pool while another's wait behind them. Per process on purpose: what it protects (CPU, the pool)
 * is per process, and a slot must never outlive its request (no Redis state to leak).
 */

export interface ConcurrencySettings {
  /** requests of one key in progress at once; 0: no limit */
  limit: number;
  /** requests of one key waiting for a slot; beyond, refused at once */
  maxQueued: number;
  /** how long one waits for a slot before being refused */
  maxWaitMs: number;
}

export type SlotRequest =
  | { admitted: true; release: () => void }
  /** `full`: the line was full; `timeout`: no slot within maxWaitMs; `aborted`: the client left while waiting */
  | { admitted: false; reason: 'full' | 'timeout' | 'aborted' };

export interface ConcurrencyLimiter {
  readonly settings: ConcurrencySettings;
  /** A slot of `key` (release it exactly when the work ends: a second call is ignored). */
  acquire(key: string, signal?: AbortSignal): Promise<SlotRequest>;
  /** requests of `key` running and waiting now */
  usage(key: string): { running: number; queued: number };
}

interface KeyState {
  running: number;
  /** each waiter is handed the slot directly by the request that releases it */
  queue: ((granted: boolean) => void)[];
}

const NO_LIMIT = { admitted: true, release: () => undefined } as const;

export function createConcurrencyLimiter(settings: ConcurrencySettings): ConcurrencyLimiter {
  // Only keys with a request running or waiting are kept: memory follows the load, not the tenants.
  const keys = new Map<string, KeyState>();

  const releaser = (key: string, state: KeyState) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.queue.shift();
      if (next) return next(true);
      state.running -= 1;
      if (state.running === 0) keys.delete(key);
    };
  };

  return {
    settings,
    async acquire(key, signal) {
      if (settings.limit <= 0) return NO_LIMIT;
      if (signal?.aborted) return { admitted: false, reason: 'aborted' };
      let state = keys.get(key);
      if (!state) keys.set(key, (state = { running: 0, queue: [] }));
      if (state.running < settings.limit) {
        state.running += 1;
        return { admitted: true, release: releaser(key, state) };
      }
      if (state.queue.length >= settings.maxQueued) return { admitted: false, reason: 'full' };
      const queue = state.queue;
      const outcome = await new Promise<'granted' | 'timeout' | 'aborted'>((resolve) => {
        const leave = (reason: 'timeout' | 'aborted') => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          finish(reason);
        };
        const onAbort = () => leave('aborted');
        const timer = setTimeout(() => leave('timeout'), settings.maxWaitMs);
        const finish = (result: 'granted' | 'timeout' | 'aborted') => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        };
        const waiter = () => finish('granted');
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
      if (outcome !== 'granted') return { admitted: false, reason: outcome };
      return { admitted: true, release: releaser(key, state) };
    },
    usage(key) {
      const state = keys.get(key);
      return { running: state?.running ?? 0, queued: state?.queue.length ?? 0 };
    },
  };
}
