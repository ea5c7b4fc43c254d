/**
 * Reading reports: plain inputs, plain outputs; both GraphQL and REST go through here.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import { countWhenRead, pageBounds, type Page, type PageRequest } from '../../shared/pagination';
import type { ReportFilterArgs } from './report-filters.args';
import {
  groupedReportCountSql,
  groupedReportPageSql,
  parseReportOrder,
  reportCountSql,
  reportPageSql,
  type CompactReportRow,
  type ReportGroupColumn,
} from './report-query';
import type { Report, ReportCompact } from './report.types';

export interface ReportListRequest extends PageRequest {
  order_by?: string | null;
}

export function toCompactReport(row: CompactReportRow): ReportCompact {
  return {
    ...row,
    type: row.type as ReportCompact['type'],
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
): Promise<Page<ReportCompact>> {
  const { limit, offset } = pageBounds(page);
  const order = parseReportOrder(page.order_by);
  const count = async () => Number((await prisma.$queryRaw<{ total: number }[]>(reportCountSql(organizationId, filters)))[0]?.total ?? 0);
  // Started with the page when wanted, so both statements run at once.
  const total = countTotal ? count() : countWhenRead(count);
  // A failed page must not leave the count's rejection unhandled.
  if (total instanceof Promise) total.catch(() => undefined);
  const rows = await prisma.$queryRaw<CompactReportRow[]>(reportPageSql({ organizationId, filters, limit, offset, order }));
  return { items: rows.map(toCompactReport), limit, offset, total };
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

/** Full reports by token (the fetch-one path and `counter`): raw SQL, like the lists. */
export function findReports(prisma: PrismaClient, organizationId: string, tokens: readonly string[]): Promise<Report[]> {
  return prisma.$queryRaw<Report[]>`
    SELECT r.token, r.created_at, r.updated_at, r.organization_id, r.entity_id, r.dealership_id, r.profile_id, r.contact_id,
      r.counter_id, r.type, r.valid, r.data, r.state, r.real_costs
    FROM reports r WHERE r.organization_id = ${organizationId}::uuid AND r.token = ANY(${tokens}::uuid[])`;
}
