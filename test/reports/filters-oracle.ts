/**
 * A plain in-memory reading of api-behaviour.md ("Reading") over the seeded dataset: what
 * GET /public/reports/, /users/ and /dealerships/ must answer. Written from the spec text, not
 * from the SQL, so that the example and property tests compare two independent implementations.
 *
 * Where the spec leaves a detail to the database, the oracle follows PostgreSQL and
 * docs/filters.md says so: text sorts by code point (the databases use the C.UTF-8 collation),
 * NULLs sort last ascending and first descending, `type` sorts in the enumeration's order
 * (spec 2.6), and `search` also finds the plate and VIN written without separators.
 */
import type { DemoDataset, ReportRow, UserRow, DealershipRow } from '../../src/seed/dataset';
import { REPORT_TYPES } from '../../src/seed/dataset';

export interface ReportFilterInput {
  created_at__gte?: Date;
  created_at__lte?: Date;
  updated_at__gte?: Date;
  updated_at__lte?: Date;
  organization_id?: string;
  dealership_id?: string;
  entity_id?: string;
  profile_id?: string;
  contact_id?: string;
  counter_id?: string;
  token?: string;
  vin?: string;
  license_number?: string;
  brand?: string;
  version?: string;
  organization_name?: string;
  dealership_name?: string;
  entity_name?: string;
  search?: string;
  valid?: boolean;
  type?: string;
  data__contains?: unknown;
  state__contains?: unknown;
  state__not_contains?: unknown;
}

export interface PageInput {
  limit?: number;
  offset?: number;
  order_by?: string;
}

export interface ExpectedPage {
  tokens: string[];
  total: number;
}

// ---------------------------------------------------------------------------------------------
// Query strings

/** The REST query string of a filter set (dates in ISO 8601, JSON values as JSON text). */
export function queryString(input: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value instanceof Date) params.set(name, value.toISOString());
    else if (/__(not_)?contains$/.test(name)) params.set(name, JSON.stringify(value));
    else params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

// ---------------------------------------------------------------------------------------------
// Matching

const lower = (text: string | null | undefined): string | null => (text == null ? null : text.toLowerCase());
/** Case-insensitive, spaces and dashes ignored (api-behaviour.md: `AB-123-CD` = `ab123cd`). */
export const normalizedIdentifier = (text: string): string => text.replace(/[\s-]+/g, '').toUpperCase();
const includesFolded = (haystack: string | null | undefined, needle: string): boolean =>
  haystack != null && haystack.toLowerCase().includes(needle.toLowerCase());

/** PostgreSQL `jsonb @>`: objects by key subset, arrays by element subset (any order), scalars by equality. */
export function jsonContains(container: unknown, contained: unknown): boolean {
  if (Array.isArray(contained)) {
    if (!Array.isArray(container)) return false;
    return contained.every((wanted) => container.some((item) => jsonContains(item, wanted)));
  }
  if (contained !== null && typeof contained === 'object') {
    if (container === null || typeof container !== 'object' || Array.isArray(container)) return false;
    const record = container as Record<string, unknown>;
    return Object.entries(contained as Record<string, unknown>).every(
      ([key, wanted]) => Object.prototype.hasOwnProperty.call(record, key) && jsonContains(record[key], wanted),
    );
  }
  return container === contained;
}

/** A report with the values the filters talk about, looked up once. */
export interface ReportFacts {
  row: ReportRow;
  vin: string | null;
  license_number: string | null;
  brand: string | null;
  model: string | null;
  version: string | null;
  folder_name: string | null;
  client_name: string | null;
  client_email: string | null;
  client_phone: string | null;
  organization_name: string;
  entity_name: string;
  dealership_name: string | null;
}

export function reportFacts(dataset: DemoDataset): ReportFacts[] {
  const names = (rows: { id: string; name: string }[]) => new Map(rows.map((r) => [r.id, r.name]));
  const organizations = names(dataset.organizations);
  const entities = names(dataset.entities);
  const dealerships = names(dataset.dealerships);
  return dataset.reports.map((row) => ({
    row,
    vin: row.data.vehicle?.vin ?? null,
    license_number: row.data.vehicle?.license?.number ?? null,
    brand: row.data.vehicle?.specifications?.brand ?? null,
    model: row.data.vehicle?.specifications?.model ?? null,
    version: row.data.metadata?.version ?? null,
    folder_name: row.data.metadata?.name ?? null,
    client_name: row.data.metadata?.individual?.name ?? null,
    client_email: row.data.metadata?.individual?.email ?? null,
    client_phone: row.data.metadata?.individual?.phone ?? null,
    organization_name: organizations.get(row.organization_id)!,
    entity_name: entities.get(row.entity_id)!,
    dealership_name: row.dealership_id ? (dealerships.get(row.dealership_id) ?? null) : null,
  }));
}

/** The texts one search term may be found in (api-behaviour.md), plus plate and VIN without separators. */
function searchedTexts(r: ReportFacts): (string | null)[] {
  return [
    r.vin,
    r.license_number,
    r.brand,
    r.model,
    r.client_name,
    r.client_email,
    r.client_phone,
    r.folder_name,
    r.dealership_name,
    r.license_number === null ? null : normalizedIdentifier(r.license_number),
    r.vin === null ? null : normalizedIdentifier(r.vin),
  ];
}

export function reportMatches(r: ReportFacts, organizationId: string, f: ReportFilterInput): boolean {
  const row = r.row;
  const t = (d: Date) => d.getTime();
  const checks: boolean[] = [
    row.organization_id === organizationId,
    row.valid === (f.valid ?? true),
    f.created_at__gte === undefined || t(row.created_at) >= t(f.created_at__gte),
    f.created_at__lte === undefined || t(row.created_at) <= t(f.created_at__lte),
    f.updated_at__gte === undefined || t(row.updated_at) >= t(f.updated_at__gte),
    f.updated_at__lte === undefined || t(row.updated_at) <= t(f.updated_at__lte),
    f.organization_id === undefined || row.organization_id === f.organization_id,
    f.dealership_id === undefined || row.dealership_id === f.dealership_id,
    f.entity_id === undefined || row.entity_id === f.entity_id,
    f.profile_id === undefined || row.profile_id === f.profile_id,
    f.contact_id === undefined || row.contact_id === f.contact_id,
    f.counter_id === undefined || row.counter_id === f.counter_id,
    f.token === undefined || row.token === f.token,
    f.vin === undefined || (r.vin !== null && normalizedIdentifier(r.vin) === normalizedIdentifier(f.vin)),
    f.license_number === undefined ||
      (r.license_number !== null && normalizedIdentifier(r.license_number) === normalizedIdentifier(f.license_number)),
    f.brand === undefined || lower(r.brand) === lower(f.brand),
    f.version === undefined || lower(r.version) === lower(f.version),
    f.organization_name === undefined || includesFolded(r.organization_name, f.organization_name),
    f.dealership_name === undefined || includesFolded(r.dealership_name, f.dealership_name),
    f.entity_name === undefined || includesFolded(r.entity_name, f.entity_name),
    f.type === undefined || row.type === f.type,
    f.data__contains === undefined || jsonContains(row.data, f.data__contains),
    f.state__contains === undefined || jsonContains(row.state, f.state__contains),
    f.state__not_contains === undefined || !jsonContains(row.state, f.state__not_contains),
    f.search === undefined ||
      f.search
        .split(/\s+/)
        .filter(Boolean)
        .every((term) => searchedTexts(r).some((text) => includesFolded(text, term))),
  ];
  return checks.every(Boolean);
}

// ---------------------------------------------------------------------------------------------
// Ordering

type SortValue = string | number | null;

export interface SortTerm {
  field: string;
  descending: boolean;
}

export function parseOrder(raw: string | undefined, fallback: SortTerm[]): SortTerm[] {
  if (raw === undefined || raw.trim() === '') return fallback;
  const seen = new Set<string>();
  return raw
    .split(',')
    .map((part) => part.trim())
    .map((part) => ({ field: part.replace(/^-/, ''), descending: part.startsWith('-') }))
    .filter((term) => (seen.has(term.field) ? false : (seen.add(term.field), true)));
}

/** PostgreSQL's order: NULLs are larger than any value (last ascending, first descending). */
function compareValues(a: SortValue, b: SortValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Sorts by the terms, then by the primary key ascending (api-behaviour.md: stable paging). */
export function sortBy<T>(rows: T[], terms: SortTerm[], value: (row: T, field: string) => SortValue, primaryKey: string): T[] {
  const all = terms.some((t) => t.field === primaryKey) ? terms : [...terms, { field: primaryKey, descending: false }];
  return [...rows].sort((x, y) => {
    for (const term of all) {
      const c = compareValues(value(x, term.field), value(y, term.field));
      if (c !== 0) return term.descending ? -c : c;
    }
    return 0;
  });
}

function reportSortValue(r: ReportFacts, field: string): SortValue {
  switch (field) {
    case 'created_at':
      return r.row.created_at.getTime();
    case 'updated_at':
      return r.row.updated_at.getTime();
    case 'token':
      return r.row.token;
    // An enumeration sorts in its declared order (spec 2.6), as PostgreSQL sorts enum values.
    case 'type':
      return REPORT_TYPES.indexOf(r.row.type);
    case 'vin':
      return r.vin;
    case 'license_number':
      return r.license_number;
    case 'brand':
      return r.brand;
    case 'dealership_name':
      return r.dealership_name;
    default:
      throw new Error(`no such report order field ${field}`);
  }
}

const NEWEST_FIRST: SortTerm[] = [{ field: 'created_at', descending: true }];

function page<T>(sorted: T[], p: PageInput): T[] {
  const offset = p.offset ?? 0;
  return sorted.slice(offset, offset + (p.limit ?? 100));
}

export function expectedReports(facts: ReportFacts[], organizationId: string, filters: ReportFilterInput, p: PageInput = {}): ExpectedPage {
  const matching = facts.filter((r) => reportMatches(r, organizationId, filters));
  const sorted = sortBy(matching, parseOrder(p.order_by, NEWEST_FIRST), reportSortValue, 'token');
  return { tokens: page(sorted, p).map((r) => r.row.token), total: matching.length };
}

// ---------------------------------------------------------------------------------------------
// Users and dealerships

export interface UserFilterInput {
  created_at__gte?: Date;
  created_at__lte?: Date;
  organization_id?: string;
  entity_id?: string;
}

export function expectedUsers(
  users: UserRow[],
  organizationId: string,
  f: UserFilterInput,
  p: PageInput = {},
): { ids: string[]; total: number } {
  const matching = users.filter(
    (u) =>
      u.organization_id === organizationId &&
      (f.created_at__gte === undefined || u.created_at.getTime() >= f.created_at__gte.getTime()) &&
      (f.created_at__lte === undefined || u.created_at.getTime() <= f.created_at__lte.getTime()) &&
      (f.organization_id === undefined || u.organization_id === f.organization_id) &&
      (f.entity_id === undefined || u.entity_id === f.entity_id),
  );
  const value = (u: UserRow, field: string): SortValue => {
    switch (field) {
      case 'created_at':
        return u.created_at.getTime();
      case 'name':
        return u.name;
      case 'email':
        return u.email;
      case 'last_activity':
        return u.last_activity?.getTime() ?? null;
      case 'id':
        return u.id;
      default:
        throw new Error(`no such user order field ${field}`);
    }
  };
  const sorted = sortBy(matching, parseOrder(p.order_by, NEWEST_FIRST), value, 'id');
  return { ids: page(sorted, p).map((u) => u.id), total: matching.length };
}

export function expectedDealerships(
  dealerships: DealershipRow[],
  organizationId: string,
  p: PageInput = {},
): { ids: string[]; total: number } {
  const matching = dealerships.filter((d) => d.organization_id === organizationId);
  const value = (d: DealershipRow, field: string): SortValue => {
    switch (field) {
      case 'name':
        return d.name;
      case 'position':
        return d.position;
      case 'created_at':
        return d.created_at.getTime();
      case 'id':
        return d.id;
      default:
        throw new Error(`no such dealership order field ${field}`);
    }
  };
  const byPositionThenName: SortTerm[] = [
    { field: 'position', descending: false },
    { field: 'name', descending: false },
  ];
  const sorted = sortBy(matching, parseOrder(p.order_by, byPositionThenName), value, 'id');
  return { ids: page(sorted, p).map((d) => d.id), total: matching.length };
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface PageBody<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export async function getJson<T>(url: string, apiKey: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { headers: { 'x-api-key': apiKey } });
  return { status: response.status, body: (await response.json()) as T };
}
