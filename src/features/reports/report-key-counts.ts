/**
 * Exact totals from `report_key_counts`: one row per (organization, valid, type, dealership,
 * profile) with its number of reports, kept by statement-level triggers in the same transaction
 * as every write to `reports` (prisma/migrations/20261125042621_report_key_counts). A list whose
 * only filters are those columns sums the organization's counter rows, whatever the number of
 * reports; any other filter is counted over the reports (report-query.ts).
 */
import { Prisma } from '../../generated/prisma/client';
import type { ReportFilterArgs } from './report-filters.args';
import type { ReportGroupColumn } from './report-list-columns';

const sql = Prisma.sql;

/** The filters the counters are keyed by (`valid` is always one, default true). */
const COUNTED_FILTERS: ReadonlySet<string> = new Set(['valid', 'organization_id', 'type', 'dealership_id', 'profile_id']);

/**
 * Whether PostgreSQL reads this text as the nil UUID (any case, hyphens, braces): the counters
 * store "no dealership / no profile" as the nil UUID, so a filter on it must count instead.
 */
function isNilUuid(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.replace(/[-{}]/g, '') === '0'.repeat(32);
}

/** Whether the counters answer a total for these filters (and these group ids, for grouped totals). */
export function countedByKey(filters: Partial<ReportFilterArgs>, groupIds: readonly string[] = []): boolean {
  const onlyCounted = Object.entries(filters).every(([name, value]) => value === undefined || value === null || COUNTED_FILTERS.has(name));
  return onlyCounted && !isNilUuid(filters.dealership_id) && !isNilUuid(filters.profile_id) && !groupIds.some(isNilUuid);
}

/** The counter rows matching the filters, always scoped to the key's organization. */
function keyConditions(organizationId: string, f: Partial<ReportFilterArgs>): Prisma.Sql {
  const c: Prisma.Sql[] = [sql`k.organization_id = ${organizationId}::uuid`, sql`k.valid = ${f.valid ?? true}`];
  // Another organization's id matches nothing, as on the reports themselves.
  if (f.organization_id) c.push(sql`k.organization_id = ${f.organization_id}::uuid`);
  if (f.type) c.push(sql`k.type = ${f.type}::"ReportType"`);
  if (f.dealership_id) c.push(sql`k.dealership_id = ${f.dealership_id}::uuid`);
  if (f.profile_id) c.push(sql`k.profile_id = ${f.profile_id}::uuid`);
  return Prisma.join(c, ' AND ');
}

/** Only when `countedByKey(filters)`: the total as `{ total }`, like the count it stands for. */
export function keyCountSql(organizationId: string, filters: Partial<ReportFilterArgs>): Prisma.Sql {
  return sql`SELECT COALESCE(sum(k.total), 0)::int AS total FROM report_key_counts k WHERE ${keyConditions(organizationId, filters)}`;
}

/** Only when `countedByKey(filters, groupIds)`: `{ group_id, total }` per group that has reports. */
export function groupedKeyCountSql(
  column: ReportGroupColumn,
  groupIds: string[],
  organizationId: string,
  filters: Partial<ReportFilterArgs>,
): Prisma.Sql {
  const group = Prisma.raw(`k.${column}`);
  return sql`SELECT ${group} AS group_id, sum(k.total)::int AS total FROM report_key_counts k
    WHERE ${keyConditions(organizationId, filters)} AND ${group} = ANY(${groupIds}::uuid[])
    GROUP BY ${group}`;
}
