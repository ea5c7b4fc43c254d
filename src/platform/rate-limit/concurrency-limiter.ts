/**
 * At most `limit` requests of one key (an organization) in progress at once in this process; the
 * excess waits in a short FIFO line for a slot, and is refused when the line is full or its wait
 * is over. The rate limit bounds what a tenant spends per minute, not how much of the process it
 * holds at one instant: without this, one tenant's parallel requests fill the event loop and the
 * pool while another's wait behind them. Per process on purpose: what it protects (CPU, the pool)
 * is per process, and a slot must never outlive its request (no Redis state to leak).
 *
 * When the event loop is busy and another key has asked for a slot within SHARED_WINDOW_MS, each
 * key's cap is `whenBusy` (1 by default) instead of `limit`: one tenant's four requests in flight
 * put four tasks ahead of each step of another tenant's request, one puts one (docs/deploy.md,
 * "Fairness between tenants"). Alone, or on an idle loop, a tenant keeps `limit`. A request
 * already running is never stopped: the stricter cap applies to the next ones.
 */

export interface ConcurrencySettings {
  /** requests of one key in progress at once; 0: no limit */
  limit: number;
  /** requests of one key waiting for a slot; beyond, refused at once */
  maxQueued: number;
  /** how long one waits for a slot before being refused */
  maxWaitMs: number;
  /** the cap of each key while the loop is busy and shared with another key; 0: always `limit` */
  whenBusy?: number;
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
  /** waiters in arrival order, started by `promote` */
  queue: (() => void)[];
}

const NO_LIMIT = { admitted: true, release: () => undefined } as const;

/**
 * How long a key counts as sharing the process after its last request: a tenant reading a page a
 * second is there between its requests too, and another's burst must not take the gaps.
 */
export const SHARED_WINDOW_MS = 1_000;

/** The keys that asked for a slot in the current and the previous window (two generations: bounded by the traffic of ~2 windows). */
class RecentKeys {
  private current = new Set<string>();
  private previous = new Set<string>();
  private rotatedAt = -Infinity;

  constructor(private readonly now: () => number) {}

  saw(key: string): void {
    this.rotate();
    this.current.add(key);
  }

  /** Whether a key other than `key` asked lately. */
  othersThan(key: string): boolean {
    this.rotate();
    return this.current.size > (this.current.has(key) ? 1 : 0) || this.previous.size > (this.previous.has(key) ? 1 : 0);
  }

  private rotate(): void {
    const now = this.now();
    if (now - this.rotatedAt < SHARED_WINDOW_MS) return;
    this.previous = now - this.rotatedAt < 2 * SHARED_WINDOW_MS ? this.current : new Set();
    this.current = new Set();
    this.rotatedAt = now;
  }
}

/** `busy`: whether the event loop is busy now (platform/event-loop-load.ts), never by default; `now`: monotonic ms. */
export function createConcurrencyLimiter(
  settings: ConcurrencySettings,
  { busy = () => false, now = () => performance.now() }: { busy?: () => boolean; now?: () => number } = {},
): ConcurrencyLimiter {
  // Only keys with a request running or waiting are kept: memory follows the load, not the tenants.
  const keys = new Map<string, KeyState>();
  const recent = new RecentKeys(now);
  const whenBusy = Math.min(settings.whenBusy ?? 0, settings.limit);
  /** The cap of `key` now: never under 1, so that a key with waiters always has a release to come. */
  // busy() first: on an idle loop (most of the time) the recent keys are not looked at.
  const capOf = (key: string) => (whenBusy > 0 && busy() && recent.othersThan(key) ? whenBusy : settings.limit);

  /** Starts the waiters of `key` in arrival order while it is under its cap. */
  const promote = (key: string, state: KeyState) => {
    while (state.queue.length > 0 && state.running < capOf(key)) {
      state.running += 1;
      state.queue.shift()!();
    }
  };

  const releaser = (key: string, state: KeyState) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.running -= 1;
      promote(key, state);
      if (state.running === 0) keys.delete(key);
    };
  };

  return {
    settings,
    async acquire(key, signal) {
      if (settings.limit <= 0) return NO_LIMIT;
      if (signal?.aborted) return { admitted: false, reason: 'aborted' };
      recent.saw(key);
      let state = keys.get(key);
      if (!state) keys.set(key, (state = { running: 0, queue: [] }));
      // The cap may have risen since the others queued (the loop is idle again): they start first,
      // and nobody overtakes a waiter.
      promote(key, state);
      if (state.queue.length === 0 && state.running < capOf(key)) {
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
