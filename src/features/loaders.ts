/**
 * Per-request DataLoaders: every relation of a page is fetched in one batched statement, and only
 * within the key's organization (another organization's objects resolve to null).
 */
import DataLoader from 'dataloader';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { keyCondition } from '../platform/db/key-condition';
import { prepared } from '../platform/db/prepared-statements';
import type { Contact } from './contacts/contact.type';
import { notAuthenticated } from '../shared/errors';
import type { Page, PageRequest } from '../shared/pagination';
import type { Dealership } from './dealerships/dealership.types';
import { findDealerships } from './dealerships/dealerships.service';
import type { Organization } from './organizations/organization.type';
import type { ReportFilterArgs } from './reports/report-filters.args';
import type { ReportGroupColumn } from './reports/report-list-columns';
import type { Report, ReportCompact } from './reports/report.types';
import { findReports, listReportsByGroup, type ReportListRequest } from './reports/reports.service';
import type { User } from './users/user.types';
import { findUsers, listUsersByDealership } from './users/users.service';
import type { Notification } from './notifications/notification.types';
import { notificationsByReport } from './notifications/notifications.service';

function byKey<T, K>(keys: readonly K[], rows: T[], keyOf: (row: T) => K): (T | null)[] {
  const map = new Map(rows.map((row) => [keyOf(row), row]));
  return keys.map((key) => map.get(key) ?? null);
}

export type ReportPageArgs = Partial<ReportFilterArgs> & ReportListRequest;

export interface Loaders {
  dealership: DataLoader<string, Dealership | null>;
  user: DataLoader<string, User | null>;
  organization: DataLoader<string, Organization | null>;
  contact: DataLoader<string, Contact | null>;
  report: DataLoader<string, Report | null>;
  /** a report's lead notifications (recipients masked) */
  notificationsByReport: DataLoader<string, Notification[]>;
  /** Pages of reports per dealership or per user, one loader per distinct argument set. */
  reportPages(column: ReportGroupColumn, args: ReportPageArgs): DataLoader<string, Page<ReportCompact>>;
  userPagesByDealership(page: PageRequest): DataLoader<string, Page<User>>;
}

/**
 * `prisma` reads (a replica, perhaps); `primaryOnMiss`, when given, is asked again for the ids
 * `prisma` did not find: an object created a moment ago on the primary may not have reached the
 * replica yet (read-your-writes on fetch by id).
 */
export function createLoaders(prisma: PrismaClient, organizationId: string | null, primaryOnMiss?: PrismaClient): Loaders {
  // Without an organization nothing is visible.
  const scoped = <T>(find: (client: PrismaClient, org: string, keys: readonly string[]) => Promise<(T | null)[]>) =>
    new DataLoader<string, T | null>(async (keys) => {
      if (!organizationId) return keys.map(() => null);
      const found = await find(prisma, organizationId, keys);
      const missing = keys.filter((_key, index) => found[index] === null);
      if (!primaryOnMiss || missing.length === 0) return found;
      const again = new Map((await find(primaryOnMiss, organizationId, missing)).map((row, index) => [missing[index], row]));
      return found.map((row, index) => row ?? again.get(keys[index]!) ?? null);
    });
  // Nested pages hang off objects a root field returned, which required a key; say so if not.
  const requireOrganizationId = (): string => {
    if (!organizationId) throw notAuthenticated();
    return organizationId;
  };
  const pageLoaders = new Map<string, DataLoader<string, never>>();
  function memoizedPageLoader<T>(key: string, load: (ids: string[]) => Promise<Map<string, Page<T>>>): DataLoader<string, Page<T>> {
    let loader = pageLoaders.get(key) as DataLoader<string, Page<T>> | undefined;
    if (!loader) {
      loader = new DataLoader<string, Page<T>>(async (ids) => {
        const pages = await load([...ids]);
        return ids.map((id) => pages.get(id)!);
      });
      pageLoaders.set(key, loader as unknown as DataLoader<string, never>);
    }
    return loader;
  }
  return {
    dealership: scoped((client, org, ids) => findDealerships(client, org, ids).then((rows) => byKey(ids, rows, (r) => r.id))),
    user: scoped((client, org, ids) => findUsers(client, org, ids).then((rows) => byKey(ids, rows, (r) => r.id))),
    // Raw SQL for the relations every page may ask for: Prisma's findMany costs more CPU than the statement.
    organization: scoped(async (client, org, ids) => {
      const rows = await client.$queryRaw<Organization[]>(
        prepared(Prisma.sql`SELECT id, name, created_at, updated_at FROM organizations WHERE id = ${org}::uuid`),
      );
      return byKey(ids, rows, (r) => r.id);
    }),
    contact: scoped(async (client, org, ids) => {
      const rows = await client.$queryRaw<Contact[]>(
        prepared(
          Prisma.sql`SELECT id, name, email, phone, created_at FROM contacts WHERE organization_id = ${org}::uuid AND ${keyCondition('id', ids)}`,
        ),
      );
      return byKey(ids, rows, (r) => r.id);
    }),
    report: scoped((client, org, tokens) => findReports(client, org, tokens).then((rows) => byKey(tokens, rows, (r) => r.token))),
    notificationsByReport: new DataLoader<string, Notification[]>((tokens) =>
      organizationId ? notificationsByReport(prisma, organizationId, tokens) : Promise.resolve(tokens.map(() => [])),
    ),
    reportPages(column, args) {
      const { limit, offset, order_by, ...filters } = args;
      return memoizedPageLoader(`reports:${column}:${JSON.stringify(args)}`, (ids) =>
        listReportsByGroup(prisma, requireOrganizationId(), column, ids, filters, { limit, offset, order_by }),
      );
    },
    userPagesByDealership(page) {
      return memoizedPageLoader(`users:dealership:${JSON.stringify(page)}`, (ids) =>
        listUsersByDealership(prisma, requireOrganizationId(), ids, page),
      );
    },
  };
}
