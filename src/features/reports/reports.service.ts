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
  compactColumnsFor,
  groupedReportCountSql,
  groupedReportPageSql,
  parseReportOrder,
  REPORT_KEY_COLUMNS,
  onlyIndexedScope,
  reportCountSql,
  reportKeyValue,
  relationColumn,
  pageColumnsWith,
  reportPageJsonSql,
  reportPageSql,
  reportPageWithRelationsSql,
  type CompactReportRow,
  type PageRelations,
} from './report-query';
import { reportItemColumns, reportItemJsonSql, type WrittenField } from './report-item-json';
import type { ReportGroupColumn } from './report-list-columns';
import type { Report, ReportCompact } from './report.types';
import { dealershipColumns, DEALERSHIP_DATE_FIELDS } from '../dealerships/dealerships.service';
import type { Dealership } from '../dealerships/dealership.types';
import { USER_COLUMNS, USER_DATE_FIELDS } from '../users/users.service';
import type { User } from '../users/user.types';

export interface ReportListRequest extends PageRequest {
  order_by?: string | null;
  /** root lists only: the position returned by the previous page */
  cursor?: string | null;
}

/**
 * A page's item from its row, field by field: the row also holds the statement's sort keys and
 * relation columns, which a spread would copy into every item (and a rest pattern copy once
 * more to leave them out). A column the page did not read (compactColumnsFor) is undefined in its
 * item: a field nobody selected.
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

export async function listReports(
  prisma: PrismaClient,
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
  page: ReportListRequest,
  /** false: the caller does not read `total`, so it is only counted if asked for after all */
  countTotal = true,
  /** signs and reads cursors; without it the page carries none (internal callers) */
  cursors?: CursorCodec,
  /** relations the caller will resolve for every row: read by the page's statement, returned in `related` */
  relations?: PageRelations,
  /** the item fields the caller reads (absent: all): the page reads only their columns */
  itemFields?: Iterable<string>,
  /** false: the caller reads neither `next_cursor` nor `pageInfo`, so no cursor is signed for them (nor a row read past the page) */
  nextPage = true,
  /**
   * the items' selection, to be written as JSON text by PostgreSQL (report-item-json.ts): when it
   * can be, the page's `items` are empty and their texts are in `written`, in order
   */
  writtenItems?: readonly WrittenField[],
): Promise<Page<ReportCompact> & { related?: PageRelated; written?: string[] }> {
  checkCursorWithOffset(page.cursor, page.offset);
  const { limit, offset } = pageBounds(page);
  const order = parseReportOrder(page.order_by);
  const terms = keyTerms(order, REPORT_KEY_COLUMNS, 'token');
  const scope: CursorScope = { list: 'reports', organizationId, order: terms, filters };
  // Decoded before any statement: a bad cursor is a 422 that costs no SQL.
  const after = page.cursor && cursors ? { terms, values: cursors.decode(page.cursor, scope) } : undefined;
  // Without value-dependent filters, one plan serves every request: PostgreSQL may keep it. The
  // request shaped the text (its order, its columns): the organization owns the name it takes.
  const keep = (statement: Prisma.Sql) => (onlyIndexedScope(filters) ? prepared(statement, organizationId) : statement);
  const count = async () =>
    Number((await prisma.$queryRaw<{ total: number }[]>(keep(reportCountSql(organizationId, filters))))[0]?.total ?? 0);
  // Started with the page when wanted, so both statements run at once.
  const total = countTotal ? count() : countWhenRead(count);
  // A failed page must not leave the count's rejection unhandled.
  if (total instanceof Promise) total.catch(() => undefined);
  // One row more than the page: whether a next page exists, without a count.
  const columns = compactColumnsFor(itemFields, order);
  const signsNext = cursors !== undefined && nextPage;
  const query = { organizationId, filters, limit: signsNext ? limit + 1 : limit, offset, order, after, columns };
  /** The page of the rows read (one more than the page when a cursor is signed), with what its items are made of. */
  const pageOf = <Row extends Record<string, unknown>>(
    rows: Row[],
    contents: (pageRows: Row[]) => { items: ReportCompact[]; related?: PageRelated; written?: string[] },
  ) => {
    const hasNextPage = rows.length > limit;
    const pageRows = hasNextPage ? rows.slice(0, limit) : rows;
    const filled = { limit, offset, total, ...contents(pageRows) };
    if (!signsNext) return filled;
    const last = pageRows[pageRows.length - 1];
    const endCursor = last
      ? cursors.encode(
          scope,
          terms.map((t) => keyValueOf(reportKeyValue(last, t.field))),
        )
      : (page.cursor ?? null);
    return { ...filled, ...cursorFields(hasNextPage, endCursor) };
  };
  const itemJson = writtenItems && reportItemJsonSql(writtenItems, organizationId);
  if (itemJson) {
    const keys = signsNext ? terms.map((t) => t.field) : [];
    const written = { ...query, columns: pageColumnsWith(reportItemColumns(writtenItems!), order) };
    const rows = await prisma.$queryRaw<{ item_json: string | null }[]>(keep(reportPageJsonSql(written, itemJson, keys)));
    // An item PostgreSQL could not write as the typed path does (a timestamp outside years 0100-9999): the page is read again, typed.
    if (rows.every((row) => row.item_json !== null)) {
      return pageOf(rows, (pageRows) => ({ items: [], written: pageRows.map((row) => row.item_json!) }));
    }
  }
  const planned = relations && (relations.dealership || relations.profile) ? relations : undefined;
  const rows = await prisma.$queryRaw<(CompactReportRow & Record<string, unknown>)[]>(
    keep(
      planned
        ? reportPageWithRelationsSql(query, planned, { dealership: dealershipColumns(organizationId), profile: USER_COLUMNS })
        : reportPageSql(query),
    ),
  );
  return pageOf(rows, (pageRows) => ({
    items: pageRows.map(toCompactReport),
    // From every row: an object comes on one row of those that name it, perhaps the extra one.
    ...(planned ? { related: takeRelations(rows, planned) } : {}),
  }));
}

/** The dealerships and profiles a page's statement read beside its rows, each once (for the loaders). */
export interface PageRelated {
  dealerships: Dealership[];
  profiles: User[];
}

/**
 * The distinct objects a page's rows carry in their relation columns (listReports leaves those
 * columns out of its items). A relation that was not found
 * (another organization's, by bad data) gives none: its loader then asks as it always did.
 */
function takeRelations(rows: Record<string, unknown>[], relations: PageRelations): PageRelated {
  const dealerships: Dealership[] = [];
  const profiles: User[] = [];
  const take = <T>(row: Record<string, unknown>, relation: keyof PageRelations, dates: readonly string[], into: T[]) => {
    const object = row[relationColumn(relation)] as Record<string, unknown> | null | undefined;
    if (!object) return;
    // JSON has no dates: the loader's row has Date objects (timestamptz(3): no precision lost).
    for (const field of dates) if (typeof object[field] === 'string') object[field] = new Date(object[field]);
    into.push(object as T);
  };
  for (const row of rows) {
    if (relations.dealership) take(row, 'dealership', DEALERSHIP_DATE_FIELDS, dealerships);
    if (relations.profile) take(row, 'profile', USER_DATE_FIELDS, profiles);
  }
  return { dealerships, profiles };
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

/** A full report's columns but its three documents (they are read apart where a stored answer may replace them). */
const REPORT_ROW_COLUMNS = Prisma.raw(
  'r.token, r.created_at, r.updated_at, r.organization_id, r.entity_id, r.dealership_id, r.profile_id, r.contact_id, r.counter_id, r.type, r.valid',
);

/** Full reports by token (the fetch-one path and `counter`): raw SQL, like the lists. */
export function findReports(prisma: PrismaClient, organizationId: string, tokens: readonly string[]): Promise<Report[]> {
  return prisma.$queryRaw<Report[]>(
    prepared(Prisma.sql`
    SELECT ${REPORT_ROW_COLUMNS}, r.data, r.state, r.real_costs
    FROM reports r WHERE r.organization_id = ${organizationId}::uuid AND ${keyCondition('r.token', tokens)}`),
  );
}

/**
 * One report for an answer that may have been built before (report_answers, kept by
 * api/stored-answers.ts): in one statement, the stored body when it was built from this very version of
 * the row and for this `shape`, else the row itself, documents included, to build the answer from.
 * `version` is the row's `xmin` (a new one on every write to the row, whoever makes it), as text.
 * Null when the organization has no such report.
 */
export async function findReportOrItsAnswer(
  prisma: PrismaClient,
  organizationId: string,
  token: string,
  shape: string,
): Promise<{ updated_at: Date; version: string; answer: string } | { updated_at: Date; version: string; report: Report } | null> {
  const rows = await prisma.$queryRaw<(Report & { version: string; answer: string | null })[]>(
    prepared(Prisma.sql`
    SELECT ${REPORT_ROW_COLUMNS}, r.xmin::text AS version, a.body AS answer,
      CASE WHEN a.body IS NULL THEN r.data END AS data,
      CASE WHEN a.body IS NULL THEN r.state END AS state,
      CASE WHEN a.body IS NULL THEN r.real_costs END AS real_costs
    FROM reports r
    LEFT JOIN report_answers a ON a.token = r.token AND a.row_version = r.xmin::text::bigint AND a.shape = ${shape}
    WHERE r.token = ${token}::uuid AND r.organization_id = ${organizationId}::uuid`),
  );
  const row = rows[0];
  if (!row) return null;
  const { version, answer, ...report } = row;
  return answer === null ? { updated_at: row.updated_at, version, report } : { updated_at: row.updated_at, version, answer };
}

/**
 * Keeps a report's answer, built from the row's version `version` for `shape`, unless the row has
 * changed since (then it would never be served: the next request builds the newer one). Replaces
 * the one kept before, whatever its version or shape: one row per report. False when not kept (the
 * row changed or was deleted).
 */
export async function keepReportAnswer(
  prisma: PrismaClient,
  token: string,
  version: string,
  shape: string,
  body: string,
): Promise<boolean> {
  // $queryRaw (RETURNING), not $executeRaw: the pg pool's own path, without Prisma's per-value
  // conversions of a ~10 KB parameter (direct-raw-queries.ts).
  const written = await prisma.$queryRaw<{ token: string }[]>(
    prepared(Prisma.sql`
    INSERT INTO report_answers (token, row_version, shape, body)
    SELECT r.token, r.xmin::text::bigint, ${shape}, ${body} FROM reports r WHERE r.token = ${token}::uuid AND r.xmin::text = ${version}
    ON CONFLICT (token) DO UPDATE SET row_version = EXCLUDED.row_version, shape = EXCLUDED.shape, body = EXCLUDED.body, built_at = now()
    RETURNING token`),
  );
  return written.length > 0;
}

/**
 * What a full report's answer depends on, read before the document (conditional requests): its
 * token and `updated_at`, which every write moves (the only writes are Prisma's, `@updatedAt`).
 * An index probe on the primary key; null when the organization has no such report.
 */
export async function reportVersion(prisma: PrismaClient, organizationId: string, token: string): Promise<Date | null> {
  const rows = await prisma.$queryRaw<{ updated_at: Date }[]>(
    prepared(Prisma.sql`SELECT r.updated_at FROM reports r WHERE r.token = ${token}::uuid AND r.organization_id = ${organizationId}::uuid`),
  );
  return rows[0]?.updated_at ?? null;
}
