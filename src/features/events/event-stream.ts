/**
 * The change feed read forward, for GraphQL subscriptions: the same reads, cursor and visibility
 * rule as the feed (events.service.ts), repeated when the organization's feed may have grown. A
 * stream therefore replays what is already after its cursor, then goes on live with nothing
 * skipped or repeated across the switch: there is no switch, only the next read.
 *
 * When it reads again: at once after a full page; at a notification (event-wakeups.ts); soon,
 * at growing intervals, while events of its organization are committed but still held back by the
 * horizon (the oldest running transaction, cluster-wide, which may write no event and so notify
 * nobody when it ends); and every `pollMs` in any case, so that a lost listening session costs
 * latency, never events.
 */
import { setTimeout } from 'node:timers/promises';
import type { PrismaClient } from '../../generated/prisma/client';
import { parseAfter, readEventsAndHeldBack, type FeedEvent } from './events.service';
import { encodeCursor } from './event-cursor';
import type { EventWakeups } from './event-wakeups';

/** Events read at once; a fuller backlog is read page after page without waiting. */
export const STREAM_PAGE = 100;

/** While committed events are held back by the horizon: read again after 50 ms, 100, 200, ... up to this. */
const HELD_BACK_FIRST_RETRY_MS = 50;
const HELD_BACK_MAX_RETRY_MS = 1_000;

export interface StreamOptions {
  /** Read at least this often even without a notification. */
  pollMs: number;
  /** Read this often while no notification can arrive (the listening session is down). */
  pollWithoutNotificationsMs: number;
}

export interface FeedStreamRequest {
  /** a cursor; undefined: from the feed's current end (only what commits from now on, give or take the horizon) */
  after?: string;
  types?: string[];
}

/** The feed's current end: the horizon, below which every transaction has ended (events.service.ts). */
export async function currentFeedEnd(prisma: PrismaClient): Promise<string> {
  const [row] = await prisma.$queryRaw<{ xmin: string }[]>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
  return encodeCursor({ xid: BigInt(row!.xmin), position: 0n });
}

/** Reads of one stream are at least this far apart (but for full pages, read on at once). */
const MIN_READ_INTERVAL_MS = 50;

/** False when aborted. */
const pause = (ms: number, signal: AbortSignal): Promise<boolean> => setTimeout(ms, true, { signal }).catch(() => false);

async function* follow(
  prisma: PrismaClient,
  organizationId: string,
  request: FeedStreamRequest,
  wakeups: EventWakeups,
  options: StreamOptions,
  signal: AbortSignal,
): AsyncGenerator<FeedEvent> {
  // Watching before the first read: a notification during it is not lost.
  const watch = wakeups.watch(organizationId);
  try {
    let after = request.after ?? (await currentFeedEnd(prisma));
    let heldFor = 0;
    let readAt = 0;
    while (!signal.aborted) {
      watch.takeNotified();
      readAt = Date.now();
      const read = await readEventsAndHeldBack(prisma, organizationId, { after, types: request.types?.join(','), limit: STREAM_PAGE });
      const page = read.page;
      after = page.next;
      for (const event of page.items) {
        if (signal.aborted) return;
        yield event;
      }
      if (page.items.length === STREAM_PAGE) continue;
      heldFor = read.heldBack ? heldFor + 1 : 0;
      const idle = wakeups.listening ? options.pollMs : options.pollWithoutNotificationsMs;
      const delay = heldFor > 0 ? Math.min(idle, HELD_BACK_MAX_RETRY_MS, HELD_BACK_FIRST_RETRY_MS * 2 ** Math.min(heldFor - 1, 10)) : idle;
      if ((await watch.wait(delay, signal)) === 'aborted') return;
      // Notifications come once per writing statement: under a steady write load, one read per
      // MIN_READ_INTERVAL_MS serves them all, instead of one read per statement per subscription.
      if (Date.now() - readAt < MIN_READ_INTERVAL_MS && !(await pause(MIN_READ_INTERVAL_MS - (Date.now() - readAt), signal))) return;
    }
  } finally {
    watch.close();
  }
}

/**
 * The organization's events after `request.after`, forever. Ending it (`return`, as graphql-ws
 * does when the client completes or leaves) stops a wait at once rather than at the next event.
 */
export function followEvents(
  prisma: PrismaClient,
  organizationId: string,
  request: FeedStreamRequest,
  wakeups: EventWakeups,
  options: StreamOptions,
): AsyncIterableIterator<FeedEvent> {
  // Checked before anything is read: a bad cursor fails the subscribe, not the first read.
  if (request.after !== undefined) parseAfter(request.after);
  const controller = new AbortController();
  const events = follow(prisma, organizationId, request, wakeups, options, controller.signal);
  return {
    next: () => events.next(),
    return: (value?: unknown) => {
      controller.abort();
      return events.return(value as undefined);
    },
    throw: (error?: unknown) => {
      controller.abort();
      return events.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
