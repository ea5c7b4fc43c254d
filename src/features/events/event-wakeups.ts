/**
 * Wakes the feed's live readers (GraphQL subscriptions) when their organization's feed may have
 * grown: the `events` trigger (migration `*_events_notify`) NOTIFYs the organization's id once per
 * writing statement, from whichever process or session wrote, and every API instance LISTENs.
 * A notification says only "read again": readers read the feed from their own cursor, so a lost or
 * merged notification delays an event, never drops it, and the (re)connection of the listening
 * session wakes everyone (notifications may have been missed while it was down).
 */
import type { Database } from '../../platform/db/database';
import type { Subscription } from '../../platform/db/notifications';

export const EVENTS_CHANNEL = 'events';

export type WakeReason = 'notified' | 'timeout' | 'aborted';

/** One reader's view: notifications for its organization since it last looked. */
export interface FeedWatch {
  /** True once per notification (or reset) seen since the last call: read now. */
  takeNotified(): boolean;
  /** Until a notification (or one already pending), `timeoutMs`, or `signal` aborting. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<WakeReason>;
  close(): void;
}

interface Watcher {
  notified: boolean;
  wake?: () => void;
}

export class EventWakeups {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly subscription: Subscription;

  /**
   * Listens from the start (on the session the API key cache already holds), not at the first
   * subscription: a LISTEN issued then would miss what commits while it is on its way.
   */
  constructor(db: Pick<Database, 'listen'>) {
    this.subscription = db.listen(EVENTS_CHANNEL, {
      message: (organization) => this.notify(this.watchers.get(organization)),
      reset: () => {
        for (const set of this.watchers.values()) this.notify(set);
      },
    });
  }

  /** Notifications arrive now (false: readers must poll; behind a transaction pooler without DIRECT_URL). */
  get listening(): boolean {
    return this.subscription.active;
  }

  watch(organizationId: string): FeedWatch {
    const watcher: Watcher = { notified: false };
    const set = this.watchers.get(organizationId) ?? new Set();
    set.add(watcher);
    this.watchers.set(organizationId, set);
    return {
      takeNotified() {
        const notified = watcher.notified;
        watcher.notified = false;
        return notified;
      },
      wait(timeoutMs, signal) {
        if (signal.aborted) return Promise.resolve('aborted');
        if (watcher.notified) return Promise.resolve('notified');
        return new Promise<WakeReason>((resolve) => {
          const done = (reason: WakeReason) => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            watcher.wake = undefined;
            resolve(reason);
          };
          const onAbort = () => done('aborted');
          const timer = setTimeout(() => done('timeout'), timeoutMs);
          signal.addEventListener('abort', onAbort, { once: true });
          watcher.wake = () => done('notified');
        });
      },
      close: () => {
        set.delete(watcher);
        if (set.size === 0 && this.watchers.get(organizationId) === set) this.watchers.delete(organizationId);
        watcher.wake?.();
      },
    };
  }

  private notify(set: Set<Watcher> | undefined): void {
    for (const watcher of set ?? []) {
      watcher.notified = true;
      watcher.wake?.();
    }
  }
}
