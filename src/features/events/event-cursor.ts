/**
 * The feed's cursor: the (transaction id, position) of the last event a reader has, opaque to
 * clients (base64url of `<xid>.<position>`). Anything that does not decode to two integers in
 * their PostgreSQL ranges (xid8, bigint) is refused as bad input, never passed to SQL.
 */
export interface EventCursor {
  xid: bigint;
  position: bigint;
}

const MAX_XID8 = 2n ** 64n - 1n;
const MAX_BIGINT = 2n ** 63n - 1n;
const CURSOR_TEXT = /^(\d{1,20})\.(\d{1,19})$/;

export const START_CURSOR: EventCursor = { xid: 0n, position: 0n };

export function encodeCursor(cursor: EventCursor): string {
  return Buffer.from(`${cursor.xid}.${cursor.position}`, 'latin1').toString('base64url');
}

/** The cursor, or undefined when `text` is not one this service could have handed out. */
export function decodeCursor(text: string): EventCursor | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  const match = CURSOR_TEXT.exec(Buffer.from(text, 'base64url').toString('latin1'));
  if (!match) return undefined;
  const cursor = { xid: BigInt(match[1]!), position: BigInt(match[2]!) };
  if (cursor.xid > MAX_XID8 || cursor.position > MAX_BIGINT) return undefined;
  // One spelling per cursor: a re-encoded cursor must give the same text back.
  return encodeCursor(cursor) === text ? cursor : undefined;
}

export function compareCursors(a: EventCursor, b: EventCursor): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  return a.position === b.position ? 0 : a.position < b.position ? -1 : 1;
}
