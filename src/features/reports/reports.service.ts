/**
 * Reading reports: plain inputs, plain outputs; both GraphQL and REST go through here.
 */
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { keyCondition } from '../../platform/db/key-condition';
import { prepared } from '../../platform/db/prepared-statements';
import { checkCursorWithOffset, keyTerms, keyValueOf, type CursorCodec, type CursorScope } from '../../shared/cursor';
import { countWhenRead, cursorFields, pageBounds, type Page, type PageRequest } from '../../shared/pagination';
import type { ReportFilterArgs } from './report-filters.args';
import {
  COMPACT_COLUMNS,
  groupedReportCountSql,
  groupedReportPageSql,
  parseReportOrder,
  REPORT_KEY_COLUMNS,
  onlyIndexedScope,
  reportCountSql,
  reportKeyValue,
  reportPageJsonSql,
  reportPageSql,
  type CompactReportRow,
  type ReportPageQuery,
} from './report-query';
import type { ReportGroupColumn } from './report-list-columns';
import type { Report, ReportCompact } from './report.types';

export interface ReportListRequest extends PageRequest {
  order_by?: string | null;
  /** root lists only: the position returned by the previous page */
  cursor?: string | null;
}

/**
 * A page's item from its row, field by field: the row also holds the statement's sort keys, which
 * a spread would copy into every item.
 */
export function toCompactReport(row: CompactReportRow): ReportCompact {
  return {
    token: row.token,
    created_at: row.created_at,
    updated_at: row.updated_at,
    organization_id: row.organization_id,
    entity_id: row.entity_id,
    dealership_id: row.dealership_id,
    profile_id: row.profile_id,
    contact_id: row.contact_id,
    counter_id: row.counter_id,
    type: row.type as ReportCompact['type'],
    valid: row.valid,
    data: { vehicle: { vin: row.vin, license_number: row.license_number } },
  };
}

/**
 * An object's JSON text as PostgreSQL writes it, from the row `r` of a fetch or `p` of a page (the
 * answer plan of the API layer): the text (NULL where that row is written the typed way), a bound
 * of the values it holds, the joins it reads, and the typed documents the caller selects parts of.
 */
export interface WrittenSql {
  json: Prisma.Sql;
  bound: Prisma.Sql;
  from: Prisma.Sql;
  documents: Prisma.Sql;
}

/** An object as written: its text (null: to be written the typed way), the bound of its values, the typed documents it marks. */
export interface Written {
  json: string | null;
  bound: number;
  documents: string | null;
}

/** A page's item as written, with its token. */
export interface WrittenRow extends Written {
  token: string;
}

export interface ReportListOptions {
  /** false: the caller does not read `total`, so it is only counted if asked for after all */
  countTotal?: boolean;
  /** signs and reads cursors; without it the page carries none (internal callers) */
  cursors?: CursorCodec;
  /** false: the caller reads neither `next_cursor` nor `pageInfo`, so no cursor is signed for them (nor a row read past the page) */
  nextPage?: boolean;
}

/** A page of the organization's reports, its items typed. */
export function listReports(
  prisma: PrismaClient,
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
  page: ReportListRequest,
  options: ReportListOptions = {},
): Promise<Page<ReportCompact>> {
  return pageOfReports(prisma, organizationId, filters, page, options, async (query, keep) => {
    const rows = await prisma.$queryRaw<CompactReportRow[]>(keep(reportPageSql(query)));
    return { rows, contents: (pageRows: CompactReportRow[]) => ({ items: pageRows.map(toCompactReport) }) };
  });
}

/** A page of the organization's reports, each item's JSON written by PostgreSQL (`written`, in order; `items` is empty). */
export function listWrittenReports(
  prisma: PrismaClient,
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
  page: ReportListRequest,
  item: WrittenSql,
  options: ReportListOptions = {},
): Promise<Page<ReportCompact> & { written: WrittenRow[] }> {
  return pageOfReports(prisma, organizationId, filters, page, options, async (query, keep, keys) => {
    const rows = await prisma.$queryRaw<WrittenRow[]>(keep(reportPageJsonSql(query, item, keys)));
    return {
      rows,
      contents: (pageRows: WrittenRow[]) => ({
        items: [] as ReportCompact[],
        written: pageRows.map(({ token, json, bound, documents }) => ({ token, json, bound: Number(bound), documents })),
      }),
    };
  });
}

type PageContents = { items: ReportCompact[]; written?: WrittenRow[] };

/**
 * A page: its bounds, order and cursor checked and decoded before any statement, its total
 * counted beside it when wanted, its rows read by `read` (one more than the page when a cursor is
 * signed) and its next cursor signed from the last one's sort keys.
 */
async function pageOfReports<Row extends object, Contents extends PageContents>(
  prisma: PrismaClient,
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
  page: ReportListRequest,
  { countTotal = true, cursors, nextPage = true }: ReportListOptions,
  read: (
    query: ReportPageQuery,
    keep: (statement: Prisma.Sql) => Prisma.Sql,
    /** the sort keys the next cursor is made of: none when no cursor is signed */
    keys: readonly string[],
  ) => Promise<{ rows: Row[]; contents: (pageRows: Row[]) => Contents }>,
): Promise<Page<ReportCompact> & Contents> {
  checkCursorWithOffset(page.cursor, page.offset);
  const { limit, offset } = pageBounds(page);
  const order = parseReportOrder(page.order_by);
  const terms = keyTerms(order, REPORT_KEY_COLUMNS, 'token');
  const scope: CursorScope = { list: 'reports', organizationId, order: terms, filters };
  // Decoded before any statement: a bad cursor is a 422 that costs no SQL.
  const after = page.cursor && cursors ? { terms, values: cursors.decode(page.cursor, scope) } : undefined;
  // Without value-dependent filters, one plan serves every request: PostgreSQL may keep it. The
  // request shaped the text (its order, its selection): the organization owns the name it takes.
  const keep = (statement: Prisma.Sql) => (onlyIndexedScope(filters) ? prepared(statement, organizationId) : statement);
  const count = async () =>
    Number((await prisma.$queryRaw<{ total: number }[]>(keep(reportCountSql(organizationId, filters))))[0]?.total ?? 0);
  // Started with the page when wanted, so both statements run at once.
  const total = countTotal ? count() : countWhenRead(count);
  // A failed page must not leave the count's rejection unhandled.
  if (total instanceof Promise) total.catch(() => undefined);
  // One row more than the page: whether a next page exists, without a count.
  const signsNext = cursors !== undefined && nextPage;
  const query: ReportPageQuery = { organizationId, filters, limit: signsNext ? limit + 1 : limit, offset, order, after };
  const { rows, contents } = await read(query, keep, signsNext ? terms.map((t) => t.field) : []);
  const hasNextPage = rows.length > limit;
  const pageRows = hasNextPage ? rows.slice(0, limit) : rows;
  const filled = { limit, offset, total, ...contents(pageRows) };
  if (!signsNext) return filled;
  const last = pageRows[pageRows.length - 1];
  const endCursor = last
    ? cursors.encode(
        scope,
        terms.map((t) => keyValueOf(reportKeyValue(last as Record<string, unknown>, t.field))),
      )
    : (page.cursor ?? null);
  return { ...filled, ...cursorFields(hasNextPage, endCursor) };
}

/** Pages of reports for several dealerships (or users) at once: two statements for all of them. */
export async function listReportsByGroup(
  prisma: PrismaClient,
  organizationId: string,
  column: ReportGroupColumn,
  groupIds: string[],
  filters: Partial<ReportFilterArgs>,
  page: ReportListRequest,
): Promise<Map<string, Page<ReportCompact>>> {
  const { limit, offset } = pageBounds(page);
  const order = parseReportOrder(page.order_by);
  const query = { organizationId, filters, limit, offset, order };
  const [rows, counts] = await Promise.all([
    prisma.$queryRaw<CompactReportRow[]>(groupedReportPageSql(column, groupIds, query)),
    prisma.$queryRaw<{ group_id: string; total: number }[]>(groupedReportCountSql(column, groupIds, organizationId, filters)),
  ]);
  const pages = new Map<string, Page<ReportCompact>>(groupIds.map((id) => [id, { items: [], limit, offset, total: 0 }]));
  for (const count of counts) pages.get(count.group_id)!.total = Number(count.total);
  for (const row of rows) pages.get(row[column] as string)?.items.push(toCompactReport(row));
  return pages;
}

/** A full report's columns. */
const REPORT_COLUMNS = Prisma.raw(
  'r.token, r.created_at, r.updated_at, r.organization_id, r.entity_id, r.dealership_id, r.profile_id, r.contact_id, r.counter_id, ' +
    'r.type, r.valid, r.data, r.state, r.real_costs',
);

/** Full reports by token (the typed path's loader: `counter`, a report written the typed way): raw SQL, like the lists. */
export function findReports(prisma: PrismaClient, organizationId: string, tokens: readonly string[]): Promise<Report[]> {
  return prisma.$queryRaw<Report[]>(
    prepared(Prisma.sql`
    SELECT ${REPORT_COLUMNS} FROM reports r WHERE r.organization_id = ${organizationId}::uuid AND ${keyCondition('r.token', tokens)}`),
  );
}

/** Pages' items by token (those a written page hands to the typed path), in no particular order. */
export async function findCompactReports(
  prisma: PrismaClient,
  organizationId: string,
  tokens: readonly string[],
): Promise<ReportCompact[]> {
  const rows = await prisma.$queryRaw<CompactReportRow[]>(
    prepared(Prisma.sql`
    SELECT ${COMPACT_COLUMNS} FROM reports r WHERE r.organization_id = ${organizationId}::uuid AND ${keyCondition('r.token', tokens)}`),
  );
  return rows.map(toCompactReport);
}

/**
 * One report's JSON as written by PostgreSQL (null text: written the typed way), with the bound
 * of its values and the row's version; null when the organization has no such report.
 */
export async function readWrittenReport(
  prisma: PrismaClient,
  organizationId: string,
  token: string,
  written: WrittenSql,
): Promise<(Written & { version: string }) | null> {
  const rows = await prisma.$queryRaw<(Written & { version: string })[]>(
    prepared(
      Prisma.sql`
    SELECT ${written.json} AS json, ${written.bound} AS bound, ${written.documents} AS documents, ${ROW_VERSION} AS version
    FROM reports r ${written.from}
    WHERE r.token = ${token}::uuid AND r.organization_id = ${organizationId}::uuid`,
      organizationId,
    ),
  );
  const row = rows[0];
  return row ? { ...row, bound: Number(row.bound) } : null;
}

/**
 * A report row's version: its `xmin`, the transaction that wrote this version of the row. Every
 * write gives the row a new one, whoever makes it (this API, an import, a hand-made UPDATE that
 * leaves `updated_at` alone), so everything answered from the row changes with it.
 */
const ROW_VERSION = Prisma.raw('r.xmin::text');

/** A report's version (ETags) without its documents: an index probe on the primary key; null when the organization has no such report. */
export async function reportVersion(prisma: PrismaClient, organizationId: string, token: string): Promise<string | null> {
  const rows = await prisma.$queryRaw<{ version: string }[]>(
    prepared(
      Prisma.sql`SELECT ${ROW_VERSION} AS version FROM reports r WHERE r.token = ${token}::uuid AND r.organization_id = ${organizationId}::uuid`,
    ),
  );
  return rows[0]?.version ?? null;
}
