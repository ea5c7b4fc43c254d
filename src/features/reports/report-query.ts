/**
 * SQL for report lists: one statement for a page (compact columns only, never the `data`
 * document) and one for the total, whatever filters are combined. Every value is a bound
 * parameter; only fixed identifiers are spliced in.
 */
import { Prisma } from '../../generated/prisma/client';
import { ReportType } from '../../generated/prisma/enums';
import { containsPattern } from '../../shared/like';
import { keysetCondition, type KeyColumn, type KeyTerm, type KeyValue } from '../../shared/cursor';
import { orderByClause, orderTerms, type OrderTerm } from '../../shared/order-by';
import type { ReportFilterArgs } from './report-filters.args';
import { countedByKey, groupedKeyCountSql, keyCountSql } from './report-key-counts';
import { REPORT_ORDER_FIELDS, type ReportGroupColumn } from './report-list-columns';

const sql = Prisma.sql;

/** Each sort column's type and nullability, for cursors (`shared/cursor.ts`). */
export const REPORT_KEY_COLUMNS: Record<string, KeyColumn> = {
  created_at: { sql: 'r.created_at', type: { kind: 'timestamptz' }, nullable: false },
  updated_at: { sql: 'r.updated_at', type: { kind: 'timestamptz' }, nullable: false },
  token: { sql: 'r.token', type: { kind: 'uuid' }, nullable: false },
  type: { sql: 'r.type', type: { kind: 'enum', sqlType: '"ReportType"', values: Object.values(ReportType) }, nullable: false },
  vin: { sql: 'r.vin', type: { kind: 'text' }, nullable: true },
  license_number: { sql: 'r.license_number', type: { kind: 'text' }, nullable: true },
  brand: { sql: 'r.brand', type: { kind: 'text' }, nullable: true },
  dealership_name: { sql: 'd.name', type: { kind: 'text' }, nullable: true },
};

const ORDER_COLUMNS: Record<string, string> = Object.fromEntries(Object.entries(REPORT_KEY_COLUMNS).map(([f, c]) => [f, c.sql]));

/** Sort keys a compact row does not carry: selected beside it under these names, for the next cursor. */
const EXTRA_KEY_COLUMNS: Record<string, string> = { brand: 'sort_brand', dealership_name: 'sort_dealership_name' };

/** The value of a sort key in a page's row. */
export function reportKeyValue(row: Record<string, unknown>, field: string): unknown {
  return row[EXTRA_KEY_COLUMNS[field] ?? field];
}

export const DEFAULT_REPORT_ORDER: OrderTerm[] = [{ field: 'created_at', descending: true }];

/** The columns of the compact report (spec 2.2) plus the ids relations need: a page's row. */
const COMPACT_COLUMN_LIST = [
  'token',
  'created_at',
  'updated_at',
  'organization_id',
  'entity_id',
  'dealership_id',
  'profile_id',
  'contact_id',
  'counter_id',
  'type',
  'valid',
  'vin',
  'license_number',
] as const satisfies readonly (keyof CompactReportRow)[];

/** The columns a page's row holds, to write its item from (reportPageJsonSql). */
export const PAGE_ROW_COLUMNS: ReadonlySet<string> = new Set(COMPACT_COLUMN_LIST);

/** A select list of compact columns of `r` (fixed names only: nothing from a request is spliced in). */
const selectList = (columns: readonly string[]) => Prisma.raw(columns.map((column) => `r.${column}`).join(', '));

export const COMPACT_COLUMNS = selectList(COMPACT_COLUMN_LIST);

export interface CompactReportRow {
  token: string;
  created_at: Date;
  updated_at: Date;
  organization_id: string;
  entity_id: string;
  dealership_id: string | null;
  profile_id: string | null;
  contact_id: string | null;
  counter_id: string | null;
  type: string;
  valid: boolean;
  vin: string | null;
  license_number: string | null;
}

/** Upper case without spaces and dashes, as the generated *_norm columns are. */
export function normalizeIdentifier(value: string): string {
  return value.replace(/[\s-]+/g, '').toUpperCase();
}

const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/**
 * `column @> value`. A REST filter read as Python's json reads it may hold NaN or ±Infinity, which
 * no jsonb document can (JSON.stringify would turn them into null and match nulls): such a filter
 * is contained in no document, so it matches nothing (and its negation everything).
 */
function containment(column: 'r.data' | 'r.state', value: unknown): Prisma.Sql {
  return holdsNonFiniteNumber(value) ? sql`FALSE` : sql`${Prisma.raw(column)} @> ${jsonb(value)}`;
}

function holdsNonFiniteNumber(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsNonFiniteNumber);
}
/**
 * The named row must be the organization's own too: a report whose reference points at another
 * organization's dealership or entity (bad data) must not let its name be probed (test/tenancy).
 */
const nameMatches = (table: string, column: string, text: string, organizationId: string) =>
  sql`EXISTS (SELECT 1 FROM ${Prisma.raw(table)} x WHERE x.id = ${Prisma.raw(column)}
      AND ${Prisma.raw(table === 'organizations' ? 'x.id' : 'x.organization_id')} = ${organizationId}::uuid
      AND x.name ILIKE ${containsPattern(text)})`;

function searchTerms(f: Partial<ReportFilterArgs>): string[] {
  return (f.search ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Whether the filters leave only the organization and `valid` (served by one index, whatever
 * their values): then one generic plan fits every request, and PostgreSQL may keep it
 * (platform/db/prepared-statements.ts). Any other filter's best plan depends on its value.
 */
export function onlyIndexedScope(f: Partial<ReportFilterArgs>): boolean {
  return Object.entries(f).every(([name, value]) => name === 'valid' || value === undefined || value === null);
}

/** WHERE conditions for the filters, always scoped to the key's organization. */
export function reportConditions(organizationId: string, f: Partial<ReportFilterArgs>): Prisma.Sql {
  const c: Prisma.Sql[] = [sql`r.organization_id = ${organizationId}::uuid`, sql`r.valid = ${f.valid ?? true}`];
  if (f.created_at__gte) c.push(sql`r.created_at >= ${f.created_at__gte}`);
  if (f.created_at__lte) c.push(sql`r.created_at <= ${f.created_at__lte}`);
  if (f.updated_at__gte) c.push(sql`r.updated_at >= ${f.updated_at__gte}`);
  if (f.updated_at__lte) c.push(sql`r.updated_at <= ${f.updated_at__lte}`);
  // Another organization's id simply matches nothing: r.organization_id is already pinned.
  if (f.organization_id) c.push(sql`r.organization_id = ${f.organization_id}::uuid`);
  if (f.dealership_id) c.push(sql`r.dealership_id = ${f.dealership_id}::uuid`);
  if (f.entity_id) c.push(sql`r.entity_id = ${f.entity_id}::uuid`);
  if (f.profile_id) c.push(sql`r.profile_id = ${f.profile_id}::uuid`);
  if (f.contact_id) c.push(sql`r.contact_id = ${f.contact_id}::uuid`);
  if (f.counter_id) c.push(sql`r.counter_id = ${f.counter_id}::uuid`);
  if (f.token) c.push(sql`r.token = ${f.token}::uuid`);
  if (f.vin) c.push(sql`r.vin_norm = ${normalizeIdentifier(f.vin)}`);
  if (f.license_number) c.push(sql`r.license_number_norm = ${normalizeIdentifier(f.license_number)}`);
  if (f.brand) c.push(sql`r.brand_norm = lower(${f.brand})`);
  if (f.version) c.push(sql`r.version_norm = lower(${f.version})`);
  if (f.organization_name) c.push(nameMatches('organizations', 'r.organization_id', f.organization_name, organizationId));
  if (f.dealership_name) c.push(nameMatches('dealerships', 'r.dealership_id', f.dealership_name, organizationId));
  if (f.entity_name) c.push(nameMatches('entities', 'r.entity_id', f.entity_name, organizationId));
  if (f.type) c.push(sql`r.type = ${f.type}::"ReportType"`);
  if (f.data__contains !== undefined && f.data__contains !== null) c.push(containment('r.data', f.data__contains));
  if (f.state__contains !== undefined && f.state__contains !== null) c.push(containment('r.state', f.state__contains));
  if (f.state__not_contains !== undefined && f.state__not_contains !== null) {
    c.push(sql`NOT (${containment('r.state', f.state__not_contains)})`);
  }
  for (const term of searchTerms(f)) {
    const pattern = containsPattern(term.toLowerCase());
    // Two index-friendly alternatives that PostgreSQL can OR as bitmaps: the trigram index on
    // search_text, and the dealership index with the matching dealerships' ids computed once
    // (`= ANY(ARRAY(…))`; an `IN (subquery)` here cannot join a BitmapOr).
    c.push(sql`(r.search_text LIKE ${pattern} OR r.dealership_id = ANY (ARRAY(
      SELECT d.id FROM dealerships d WHERE d.organization_id = ${organizationId}::uuid AND d.name ILIKE ${containsPattern(term)})))`);
  }
  return Prisma.join(c, ' AND ');
}

export interface ReportPageQuery {
  organizationId: string;
  filters: Partial<ReportFilterArgs>;
  limit: number;
  offset: number;
  order: OrderTerm[];
  /** a cursor's position: only rows after it (then `offset` is 0) */
  after?: { terms: KeyTerm[]; values: KeyValue[] };
}

export function parseReportOrder(raw: string | null | undefined): OrderTerm[] {
  return orderTerms(raw, REPORT_ORDER_FIELDS, DEFAULT_REPORT_ORDER);
}

/**
 * `reports` (or the CTE of matches standing in for it) as `r`, with dealerships when ordering by
 * their name: the organization's own only, so that another's name cannot be probed by sorting.
 */
function fromClause(order: OrderTerm[], source: 'reports r' | 'r' = 'reports r'): Prisma.Sql {
  return order.some((t) => t.field === 'dealership_name')
    ? sql`${Prisma.raw(source)} LEFT JOIN dealerships d ON d.id = r.dealership_id AND d.organization_id = r.organization_id`
    : Prisma.raw(source);
}

function extraKeyColumns(order: OrderTerm[]): Prisma.Sql {
  const extra = order.filter((t) => EXTRA_KEY_COLUMNS[t.field]);
  return Prisma.raw(extra.map((t) => `, ${REPORT_KEY_COLUMNS[t.field]!.sql} AS ${EXTRA_KEY_COLUMNS[t.field]}`).join(''));
}

export function reportPageSql(q: ReportPageQuery): Prisma.Sql {
  const order = orderByClause(q.order, ORDER_COLUMNS, 'r.token');
  const after = q.after ? sql` AND ${keysetCondition(q.after.terms, q.after.values)}` : Prisma.empty;
  const extra = extraKeyColumns(q.order);
  if (searchTerms(q.filters).length > 0) {
    // PostgreSQL cannot estimate how many rows a `%fragment%` matches and, given ORDER BY … LIMIT,
    // walks the organization's created_at index testing every row: 350 ms at 40k reports when a
    // plate fragment matches 12 of them. Materializing the matches first makes it take the
    // trigram index (the same plan as the total's), then sort only those rows.
    return sql`WITH r AS MATERIALIZED (
        SELECT ${COMPACT_COLUMNS}, r.brand FROM reports r WHERE ${reportConditions(q.organizationId, q.filters)})
      SELECT ${COMPACT_COLUMNS}${extra} FROM ${fromClause(q.order, 'r')}
      WHERE TRUE${after}
      ORDER BY ${order}
      LIMIT ${q.limit} OFFSET ${q.offset}`;
  }
  return sql`SELECT ${COMPACT_COLUMNS}${extra} FROM ${fromClause(q.order)}
    WHERE ${reportConditions(q.organizationId, q.filters)}${after}
    ORDER BY ${order}
    LIMIT ${q.limit} OFFSET ${q.offset}`;
}

/** The page's own order again, on its subquery `p` (where the extra sort keys have their row names). */
const PAGE_ORDER_COLUMNS: Record<string, string> = Object.fromEntries(
  Object.keys(ORDER_COLUMNS).map((field) => [field, `p.${EXTRA_KEY_COLUMNS[field] ?? field}`]),
);

/**
 * The page with each item's JSON text written by PostgreSQL (the answer plan's `item`, over the
 * page's row `p`, which holds PAGE_ROW_COLUMNS), the bound of its values and its token, beside only
 * the sort keys the next cursor is made of (`keys`: none when no cursor is signed). The page keeps
 * its plan: it is the subquery `p`, its LIMIT applied first; what the items read is joined to its
 * rows.
 */
export function reportPageJsonSql(
  q: ReportPageQuery,
  item: { json: Prisma.Sql; bound: Prisma.Sql; from: Prisma.Sql; documents: Prisma.Sql },
  keys: readonly string[],
): Prisma.Sql {
  const keyColumns = Prisma.raw(keys.map((field) => `p.${EXTRA_KEY_COLUMNS[field] ?? field}, `).join(''));
  return sql`SELECT ${keyColumns}p.token, ${item.json} AS json, ${item.bound} AS bound, ${item.documents} AS documents
    FROM (${reportPageSql(q)}) p ${item.from}
    ORDER BY ${orderByClause(q.order, PAGE_ORDER_COLUMNS, 'p.token')}`;
}

export function reportCountSql(organizationId: string, filters: Partial<ReportFilterArgs>): Prisma.Sql {
  // Only counted filters (organization, valid, type, dealership, profile; the default page among
  // them): the counters the triggers keep exact, the organization's few rows summed instead of
  // its reports counted.
  if (countedByKey(filters)) return keyCountSql(organizationId, filters);
  return sql`SELECT count(*)::int AS total FROM reports r WHERE ${reportConditions(organizationId, filters)}`;
}

/**
 * One page per group in one statement: the same filters and order, numbered within each group.
 * Serves nested lists (a page of dealerships, each with its page of reports) without N+1.
 */
export function groupedReportPageSql(column: ReportGroupColumn, groupIds: string[], q: ReportPageQuery): Prisma.Sql {
  const group = Prisma.raw(`r.${column}`);
  return sql`SELECT * FROM (
      SELECT ${COMPACT_COLUMNS},
        row_number() OVER (PARTITION BY ${group} ORDER BY ${orderByClause(q.order, ORDER_COLUMNS, 'r.token')}) AS row_number
      FROM ${fromClause(q.order)}
      WHERE ${reportConditions(q.organizationId, q.filters)} AND ${group} = ANY(${groupIds}::uuid[])
    ) ranked
    WHERE row_number > ${q.offset} AND row_number <= ${q.offset + q.limit}
    ORDER BY row_number`;
}

export function groupedReportCountSql(
  column: ReportGroupColumn,
  groupIds: string[],
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
): Prisma.Sql {
  if (countedByKey(filters, groupIds)) return groupedKeyCountSql(column, groupIds, organizationId, filters);
  const group = Prisma.raw(`r.${column}`);
  return sql`SELECT ${group} AS group_id, count(*)::int AS total FROM reports r
    WHERE ${reportConditions(organizationId, filters)} AND ${group} = ANY(${groupIds}::uuid[])
    GROUP BY ${group}`;
}
