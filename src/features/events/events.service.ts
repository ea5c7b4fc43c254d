/**
 * Reading the change feed (docs/events.md): plain inputs, plain outputs; GraphQL, REST and the
 * webhook dispatcher go through here.
 *
 * Why (xid, position) and the snapshot's xmin: positions come from a sequence when a row is
 * inserted, but rows become visible when their transaction commits, in another order. A reader
 * that remembered "the last position I saw" would skip a smaller position committed later. Each
 * row also carries its writer's transaction id; a read returns only rows of transactions older
 * than the oldest one still running (`pg_snapshot_xmin` of the statement's own snapshot). Those
 * have all ended, so their rows are all visible, and any transaction that commits later has an
 * xid at or above that xmin: above every cursor handed out. The price is that one long-running
 * writing transaction holds the feed back until it ends.
 */
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { invalidValue } from '../../shared/errors';
import { compareCursors, decodeCursor, encodeCursor, START_CURSOR, type EventCursor } from './event-cursor';
import { EVENT_TYPES } from './event-types';

export const DEFAULT_EVENT_PAGE = 100;
export const MAX_EVENT_PAGE = 1000;

export interface FeedEvent {
  /** this event's own cursor: reading after it returns the events that follow it */
  cursor: string;
  position: string;
  type: string;
  subject: string;
  occurred_at: Date;
  payload: unknown;
  /** the W3C `traceparent` of the request that wrote it, when traced: internal, never in the feed's answers (webhooks continue it) */
  trace_context?: string | null;
}

export interface EventPage {
  items: FeedEvent[];
  /** pass as `after` to read on; it may move on even when `items` is empty */
  next: string;
}

export interface EventFeedRequest {
  after?: string | null;
  limit?: number | null;
  /** comma-separated event types; none: every type */
  types?: string | null;
}

interface EventRow {
  position: string | null;
  xid: string | null;
  type: string | null;
  subject: string | null;
  occurred_at: Date | null;
  payload: unknown;
  trace_context: string | null;
  horizon: string;
  held_back: boolean;
}

/** The checked filter: undefined for every type. */
export function parseEventTypes(types: string | null | undefined): string[] | undefined {
  if (types === null || types === undefined || types.trim() === '') return undefined;
  const names = [...new Set(types.split(',').map((t) => t.trim()))];
  const unknown = names.filter((name) => !EVENT_TYPES.includes(name));
  if (unknown.length > 0) {
    throw invalidValue(
      'types',
      types,
      `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      `expected comma-separated event types among: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return names;
}

export function parseAfter(after: string | null | undefined): EventCursor {
  if (after === null || after === undefined || after === '') return START_CURSOR;
  const cursor = decodeCursor(after);
  if (!cursor) throw invalidValue('after', after, 'not a cursor this feed handed out', 'invalid cursor');
  return cursor;
}

/**
 * The organization's events after `after`, in commit order. Reads the primary (`prisma` must not
 * be a replica: a standby's snapshot would not bound the primary's running transactions).
 */
export async function readEvents(prisma: PrismaClient, organizationId: string, request: EventFeedRequest): Promise<EventPage> {
  return (await readEventsAndHeldBack(prisma, organizationId, request, false)).page;
}

/**
 * `readEvents`, and whether events after the page are committed but held back by the horizon
 * (an older transaction still running): a reader that follows the feed reads again soon then,
 * since the end of that older transaction may notify nobody. Same statement, same snapshot.
 */
export async function readEventsAndHeldBack(
  prisma: PrismaClient,
  organizationId: string,
  request: EventFeedRequest,
  checkHeldBack = true,
): Promise<{ page: EventPage; heldBack: boolean }> {
  const after = parseAfter(request.after);
  const types = parseEventTypes(request.types);
  const limit = request.limit ?? DEFAULT_EVENT_PAGE;
  if (limit < 1) return { page: { items: [], next: encodeCursor(after) }, heldBack: false };
  const typeFilter = types ? Prisma.sql`AND e.type = ANY(${types}::text[])` : Prisma.empty;
  const heldBack = checkHeldBack
    ? Prisma.sql`EXISTS (
        SELECT 1 FROM events e
        WHERE e.organization_id = ${organizationId}::uuid
          AND (e.xid, e.position) > (${after.xid.toString()}::xid8, ${after.position.toString()}::bigint)
          AND e.xid >= h.xmin
          ${typeFilter}
      )`
    : Prisma.sql`false`;
  // One statement: the horizon comes from the snapshot the rows are read with.
  const rows = await prisma.$queryRaw<EventRow[]>`
    WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
    SELECT e.position::text AS position, e.xid::text AS xid, e.type, e.subject::text AS subject, e.occurred_at, e.payload,
      e.trace_context, h.xmin::text AS horizon, ${heldBack} AS held_back
    FROM horizon h
    LEFT JOIN LATERAL (
      SELECT * FROM events e
      WHERE e.organization_id = ${organizationId}::uuid
        AND (e.xid, e.position) > (${after.xid.toString()}::xid8, ${after.position.toString()}::bigint)
        AND e.xid < h.xmin
        ${typeFilter}
      ORDER BY e.xid, e.position
      LIMIT ${limit}::int
    ) e ON true`;
  const items: FeedEvent[] = rows
    .filter((row) => row.position !== null)
    .map((row) => ({
      cursor: encodeCursor({ xid: BigInt(row.xid!), position: BigInt(row.position!) }),
      position: row.position!,
      type: row.type!,
      subject: row.subject!,
      occurred_at: row.occurred_at!,
      payload: row.payload,
      trace_context: row.trace_context,
    }));
  const held = rows[0]?.held_back === true;
  if (items.length === limit) return { page: { items, next: items[items.length - 1]!.cursor }, heldBack: held };
  // A short page has read every matching row of the transactions below the horizon: the next
  // read may start at the horizon itself (positions start at 1), never before `after`.
  const horizon: EventCursor = { xid: BigInt(rows[0]!.horizon), position: 0n };
  return { page: { items, next: encodeCursor(compareCursors(horizon, after) > 0 ? horizon : after) }, heldBack: held };
}

/**
 * Deletes events older than `retentionDays`, in batches of `batchSize` (short transactions: a
 * long one would hold every feed reader's horizon back); returns how many.
 */
export async function pruneEvents(prisma: PrismaClient, retentionDays: number, batchSize = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await prisma.$executeRaw`
      DELETE FROM events WHERE position IN (
        SELECT position FROM events WHERE occurred_at < now() - ${retentionDays}::int * interval '1 day' LIMIT ${batchSize}::int
      )`;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
