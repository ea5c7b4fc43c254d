/**
 * What the API should answer, computed from the seeded rows (`server.dataset`) with plain
 * TypeScript, independently of the SQL under test.
 */
import type { DemoDataset, ReportRow, UserRow } from '../../src/seed/dataset';
import type { graphql } from '../support/server';

export type GraphqlResponse = Awaited<ReturnType<typeof graphql>>;

/** Newest first, ties by primary key (api-behaviour.md, default order). */
export function newestFirst<T extends { created_at: Date }>(key: (row: T) => string) {
  return (a: T, b: T): number => b.created_at.getTime() - a.created_at.getTime() || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** The organization's reports a list shows by default (valid only), in the default order. */
export function reportsOf(dataset: DemoDataset, organizationId: string, filter: (r: ReportRow) => boolean = () => true): ReportRow[] {
  return dataset.reports.filter((r) => r.organization_id === organizationId && r.valid && filter(r)).sort(newestFirst((r) => r.token));
}

export function usersOf(dataset: DemoDataset, filter: (u: UserRow) => boolean): UserRow[] {
  return dataset.users.filter(filter).sort(newestFirst((u) => u.id));
}

/** Upper case without spaces and dashes, as the vin / plate filters compare. */
export const normalized = (value: string) => value.replace(/[\s-]+/g, '').toUpperCase();

/** The texts `search` looks in (api-behaviour.md), lower-cased. */
export function searchHaystack(dataset: DemoDataset, report: ReportRow): string[] {
  const { vehicle, metadata } = report.data;
  const dealership = dataset.dealerships.find((d) => d.id === report.dealership_id);
  return [
    vehicle.vin,
    vehicle.license.number,
    normalized(vehicle.license.number),
    vehicle.specifications.brand,
    vehicle.specifications.model,
    metadata.individual.name,
    metadata.individual.email,
    metadata.individual.phone,
    metadata.name,
    dealership?.name ?? '',
  ].map((text) => (text ?? '').toLowerCase());
}

/** The one error of a response, failing loudly when there is data or another count of errors. */
export function onlyError(response: GraphqlResponse): { message: string; path?: (string | number)[]; extensions: Record<string, unknown> } {
  const errors = response.body.errors ?? [];
  if (errors.length !== 1) throw new Error(`expected exactly one error, got ${JSON.stringify(response.body)}`);
  const [error] = errors as [{ message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }];
  return { message: error.message, ...(error.path ? { path: error.path } : {}), extensions: error.extensions ?? {} };
}

/** The data of a response, failing with the errors when there are any. */
export function dataOf<T>(response: GraphqlResponse): T {
  if (response.body.errors?.length || !response.body.data) throw new Error(`GraphQL errors: ${JSON.stringify(response.body)}`);
  return response.body.data as T;
}
