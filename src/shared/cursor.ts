/**
 * Keyset cursors (issue 26): an opaque `cursor` names the position after the last item of a page,
 * as the values of that page's sort key and its tie-breaker (token / id). The next page is then a
 * range scan from that position (`WHERE key > cursor ORDER BY key LIMIT n`): no rows counted off
 * and thrown away, the same cost at any depth, and a row inserted or moved elsewhere in the list
 * cannot shift the page boundary as it does with `offset`.
 *
 * A cursor is `base64url(JSON payload) "." base64url(HMAC-SHA256)`. The payload holds the key values
 * and a digest of what the cursor was made for (list, organization, order, filters); the MAC covers
 * both, so a forged or garbled cursor, or one made for another order or other filters, is a 422
 * before any SQL runs. The values are checked against the column types again after the MAC (a
 * cursor from an older release is refused, never cast into a 500).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Prisma } from '../generated/prisma/client';
import { invalidValue } from './errors';
import type { OrderTerm } from './order-by';

const sql = Prisma.sql;

/** How a sort column's values travel in a cursor and are cast back in SQL. */
export type KeyType =
  | { kind: 'timestamptz' }
  | { kind: 'uuid' }
  | { kind: 'text' }
  | { kind: 'int' }
  | { kind: 'enum'; sqlType: string; values: readonly string[] };

export interface KeyColumn {
  /** SQL expression (a fixed identifier, never user text) */
  sql: string;
  type: KeyType;
  nullable: boolean;
}

/** One term of the complete order, the tie-breaker included. */
export interface KeyTerm {
  field: string;
  column: KeyColumn;
  descending: boolean;
}

export type KeyValue = string | number | null;

/** What a cursor is valid for: a cursor of another list, organization, order or filters is refused. */
export interface CursorScope {
  list: string;
  organizationId: string;
  order: readonly KeyTerm[];
  filters: Record<string, unknown>;
}

/** The key when CURSOR_SECRET is unset: public, so a cursor is then only as good as its validation. */
export const DEFAULT_CURSOR_SECRET = 'vehicle-report-api: CURSOR_SECRET unset';

/** Current payload version: a change of the format or of a list's order columns bumps it. */
const VERSION = 1;
/** Far more than any real key (text sort columns are short), small enough to refuse junk cheaply. */
export const MAX_CURSOR_LENGTH = 2048;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The complete order of a page: the requested terms, then the tie-breaker (ascending), exactly as
 * `orderByClause`/`prismaOrderBy` sort it, so that cursor pages and offset pages agree.
 */
export function keyTerms(terms: readonly OrderTerm[], columns: Readonly<Record<string, KeyColumn>>, tieBreaker: string): KeyTerm[] {
  const keyed = terms.map((t) => ({ field: t.field, column: columns[t.field]!, descending: t.descending }));
  if (!terms.some((t) => t.field === tieBreaker)) keyed.push({ field: tieBreaker, column: columns[tieBreaker]!, descending: false });
  return keyed;
}

/** A row's key value as a cursor carries it (timestamps as ISO text with milliseconds, as stored). */
export function keyValueOf(value: unknown): KeyValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return Number(value);
  return String(value);
}

function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined && v !== null)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

function scopeDigest(scope: CursorScope): string {
  const order = scope.order.map((t) => `${t.descending ? '-' : ''}${t.field}`).join(',');
  const text = JSON.stringify([scope.list, scope.organizationId, order, canonical(scope.filters)]);
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

const invalidCursor = (input: unknown, message: string) => invalidValue('cursor', input, message);

/** Cursor and offset both place the page: only one may be given (offset 0, the default, counts as none). */
export function checkCursorWithOffset(cursor: string | null | undefined, offset: number | null | undefined): void {
  if (cursor && offset) throw invalidValue('offset', offset, 'offset cannot be combined with cursor: the cursor already places the page');
}

function validValue(value: unknown, column: KeyColumn): boolean {
  if (value === null) return column.nullable;
  switch (column.type.kind) {
    case 'timestamptz':
      return typeof value === 'string' && ISO_PATTERN.test(value) && !Number.isNaN(Date.parse(value));
    case 'uuid':
      return typeof value === 'string' && UUID_PATTERN.test(value);
    case 'text':
      return typeof value === 'string' && !value.includes('\u0000');
    case 'int':
      return typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= 2_147_483_647;
    case 'enum':
      return typeof value === 'string' && column.type.values.includes(value);
  }
}

export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`vehicle-report-api cursor\n${secret}`).digest();
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  encode(scope: CursorScope, values: readonly KeyValue[]): string {
    const payload = Buffer.from(JSON.stringify({ v: VERSION, s: scopeDigest(scope), k: values })).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The key values of a cursor made for this scope, or a 422 (BAD_USER_INPUT on `cursor`). */
  decode(raw: string, scope: CursorScope): KeyValue[] {
    if (raw.length > MAX_CURSOR_LENGTH) throw invalidCursor(raw, 'cursor is not valid');
    const [payload, signature, extra] = raw.split('.');
    if (!payload || !signature || extra !== undefined) throw invalidCursor(raw, 'cursor is not valid');
    const expected = this.mac(payload);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || given.toString('base64url') !== signature) {
      throw invalidCursor(raw, 'cursor is not valid');
    }
    let decoded: { v?: unknown; s?: unknown; k?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof decoded;
    } catch {
      throw invalidCursor(raw, 'cursor is not valid');
    }
    if (decoded.v !== VERSION) throw invalidCursor(raw, 'cursor is from another version of the API: start again from the first page');
    if (decoded.s !== scopeDigest(scope)) {
      throw invalidCursor(raw, 'cursor was made for another order_by or other filters: repeat the request that returned it');
    }
    const values = decoded.k;
    if (!Array.isArray(values) || values.length !== scope.order.length || !values.every((v, i) => validValue(v, scope.order[i]!.column))) {
      throw invalidCursor(raw, 'cursor is not valid');
    }
    return values as KeyValue[];
  }
}

/** The value cast to its column's type: the kind's own name, or the enum's. */
function castValue(value: string | number, column: KeyColumn): Prisma.Sql {
  return sql`${value}::${Prisma.raw(column.type.kind === 'enum' ? column.type.sqlType : column.type.kind)}`;
}

/**
 * The rows strictly after `values` in the order `terms`, with PostgreSQL's default NULL placement
 * (NULLS LAST ascending, NULLS FIRST descending, which ORDER BY uses here): the lexicographic
 * "after" spelled out term by term, NULL-aware. Mixed directions (`-created_at` then `token`) rule
 * out a row comparison `(a, b) > (x, y)`, so the first term also gets a plain bound (`created_at <= x`)
 * that the (…, created_at DESC, token) index takes as its range start: the scan begins at the
 * cursor and only rows sharing the first key's value are tested by the rest.
 */
export function keysetCondition(terms: readonly KeyTerm[], values: readonly KeyValue[]): Prisma.Sql {
  const col = (t: KeyTerm) => Prisma.raw(t.column.sql);
  const equal = (t: KeyTerm, v: KeyValue) => (v === null ? sql`${col(t)} IS NULL` : sql`${col(t)} = ${castValue(v, t.column)}`);
  const after = (t: KeyTerm, v: KeyValue): Prisma.Sql | null => {
    if (v === null) return t.descending ? sql`${col(t)} IS NOT NULL` : null;
    if (t.descending) return sql`${col(t)} < ${castValue(v, t.column)}`;
    return t.column.nullable
      ? sql`(${col(t)} > ${castValue(v, t.column)} OR ${col(t)} IS NULL)`
      : sql`${col(t)} > ${castValue(v, t.column)}`;
  };
  const alternatives: Prisma.Sql[] = [];
  for (let i = 0; i < terms.length; i++) {
    const step = after(terms[i]!, values[i]!);
    if (!step) continue;
    alternatives.push(Prisma.join([...terms.slice(0, i).map((t, j) => equal(t, values[j]!)), step], ' AND '));
  }
  if (alternatives.length === 0) return sql`FALSE`;
  const first = terms[0]!;
  const v = values[0]!;
  let bound: Prisma.Sql | null = null;
  if (v === null) bound = first.descending ? null : sql`${col(first)} IS NULL`;
  else if (first.descending) bound = sql`${col(first)} <= ${castValue(v, first.column)}`;
  else if (!first.column.nullable) bound = sql`${col(first)} >= ${castValue(v, first.column)}`;
  const chain = sql`(${Prisma.join(alternatives, ' OR ')})`;
  return bound ? sql`${bound} AND ${chain}` : chain;
}

/** Relay's page info, and the REST envelope's `next_cursor` (the same cursor). */
export interface CursorPageInfo {
  endCursor: string | null;
  hasNextPage: boolean;
}
