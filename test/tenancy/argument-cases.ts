/**
 * What every argument does when A's key sends B's values, by argument name (the same names in
 * REST query parameters and GraphQL arguments, root or nested). The sweep looks each argument of
 * the schema up here: an argument that is not in this table fails the sweep, so a new filter
 * cannot ship without saying what it does across organizations.
 *
 * - none: nothing comes back (an empty page) — only A's own rows that the planted references
 *   point at B's id in that very column may match (`plantedMatches`);
 * - own-only: a filter over values both organizations share (brands, dates, types): whatever
 *   comes back is A's;
 * - not-found: a fetch-one or create by B's id: 404 / NOT_FOUND;
 * - refused: B's cursor (signed for B's organization): 422 / BAD_USER_INPUT, never a page.
 */
import { DEFAULT_REPORT_ORDER, REPORT_KEY_COLUMNS } from '../../src/features/reports/report-query';
import { CursorCodec, DEFAULT_CURSOR_SECRET, keyTerms } from '../../src/shared/cursor';
import type { Tenants } from './two-tenants';

export type Expectation = 'none' | 'own-only' | 'not-found' | 'refused';

export interface ArgumentCase {
  expect: Expectation;
  values(t: Tenants): unknown[];
}

const ofB = <T extends { organization_id: string }>(t: Tenants, rows: T[]) => rows.filter((r) => r.organization_id === t.b.id);
const dataset = (t: Tenants) => t.server.dataset;
const bReports = (t: Tenants) => ofB(t, dataset(t).reports).filter((r) => r.token !== t.planted.rB);

/** B's texts that occur nowhere in A's data, so that an empty answer is the only right one. */
export function uniqueToB(t: Tenants, texts: (string | null | undefined)[]): string[] {
  const kept = [...new Set(texts.filter((text): text is string => !!text && !t.aText.includes(text.toLowerCase())))];
  if (kept.length === 0) throw new Error(`no value unique to B among ${JSON.stringify(texts)}`);
  return kept;
}

export const ARGUMENT_CASES: Record<string, ArgumentCase> = {
  organization_id: { expect: 'none', values: (t) => [t.b.id] },
  dealership_id: { expect: 'none', values: (t) => ofB(t, dataset(t).dealerships).map((d) => d.id) },
  entity_id: { expect: 'none', values: (t) => ofB(t, dataset(t).entities).map((e) => e.id) },
  profile_id: {
    expect: 'none',
    values: (t) => [
      t.planted.uB,
      t.planted.uB1,
      ...ofB(t, dataset(t).users)
        .slice(0, 3)
        .map((u) => u.id),
    ],
  },
  contact_id: { expect: 'none', values: (t) => [t.planted.cB] },
  counter_id: {
    expect: 'none',
    values: (t) => [
      t.planted.tB,
      ...bReports(t)
        .slice(0, 3)
        .map((r) => r.token),
    ],
  },
  token: {
    expect: 'none',
    values: (t) => [
      t.planted.tB,
      t.planted.rB,
      ...bReports(t)
        .slice(0, 3)
        .map((r) => r.token),
    ],
  },
  vin: {
    expect: 'none',
    values: (t) =>
      bReports(t)
        .slice(0, 3)
        .flatMap((r) => [r.data.vehicle.vin, r.data.vehicle.vin.toLowerCase().replace(/(.{4})/g, '$1-')]),
  },
  license_number: {
    expect: 'none',
    values: (t) =>
      bReports(t)
        .slice(0, 3)
        .flatMap((r) => [r.data.vehicle.license.number, r.data.vehicle.license.number.replace(/-/g, ' ').toLowerCase()]),
  },
  organization_name: {
    expect: 'none',
    values: (t) => uniqueToB(t, [dataset(t).organizations.find((o) => o.id === t.b.id)!.name, 'Horizon', 'flotte & leas']),
  },
  dealership_name: { expect: 'none', values: (t) => uniqueToB(t, [...ofB(t, dataset(t).dealerships).map((d) => d.name), 'Horizon']) },
  entity_name: { expect: 'none', values: (t) => uniqueToB(t, [...ofB(t, dataset(t).entities).map((e) => e.name), 'Horizon Leasing']) },
  // B's plate and a fragment of it, B's clients (the seeded ones and the lead's), B's dealership
  search: {
    expect: 'none',
    values: (t) =>
      uniqueToB(t, [
        ...bReports(t)
          .slice(0, 2)
          .flatMap((r) => [r.data.vehicle.license.number, r.data.vehicle.license.number.slice(0, 6)]),
        ...bReports(t)
          .slice(0, 2)
          .map((r) => r.data.metadata.individual.name),
        String(t.planted.bLead.body.name),
        String(t.planted.bLead.body.folder_name),
        'Horizon Paris',
      ]),
  },
  data__contains: {
    expect: 'none',
    values: (t) => [
      { vehicle: { vin: bReports(t)[0]!.data.vehicle.vin } },
      { metadata: { individual: { name: t.planted.bLead.body.name } } },
    ],
  },
  // values both organizations have: whatever comes back must be A's
  brand: {
    expect: 'own-only',
    values: (t) => [
      ...new Set(
        bReports(t)
          .slice(0, 3)
          .map((r) => r.data.vehicle.specifications.brand),
      ),
    ],
  },
  version: {
    expect: 'own-only',
    values: (t) => [
      ...new Set(
        bReports(t)
          .slice(0, 2)
          .map((r) => r.data.metadata.version),
      ),
    ],
  },
  created_at__gte: { expect: 'own-only', values: (t) => [bReports(t)[0]!.created_at.toISOString()] },
  created_at__lte: { expect: 'own-only', values: (t) => [bReports(t)[0]!.created_at.toISOString()] },
  updated_at__gte: { expect: 'own-only', values: (t) => [bReports(t)[0]!.updated_at.toISOString()] },
  updated_at__lte: { expect: 'own-only', values: (t) => [bReports(t)[0]!.updated_at.toISOString()] },
  valid: { expect: 'own-only', values: () => [false, true] },
  type: { expect: 'own-only', values: () => ['remote', 'inspection'] },
  state__contains: { expect: 'own-only', values: () => [{ folder_created: { status: true } }] },
  state__not_contains: { expect: 'own-only', values: () => [{ folder_sold: { status: true } }] },
  limit: { expect: 'own-only', values: () => [100] },
  offset: { expect: 'own-only', values: () => [0] },
  // a cursor of B's default report list, properly signed (the test knows the default key): refused for A
  cursor: {
    expect: 'refused',
    values: (t) => {
      const report = bReports(t)[0]!;
      const scope = {
        list: 'reports',
        organizationId: t.b.id,
        order: keyTerms(DEFAULT_REPORT_ORDER, REPORT_KEY_COLUMNS, 'token'),
        filters: {},
      };
      return [new CursorCodec(DEFAULT_CURSOR_SECRET).encode(scope, [report.created_at.toISOString(), report.token])];
    },
  },
  order_by: { expect: 'own-only', values: () => ['-created_at'] },
  // The change feed: a cursor is a place in the log every organization shares, not B's (the
  // start of the log and an arbitrary later place); types are shared names.
  after: { expect: 'own-only', values: () => [Buffer.from('0.0').toString('base64url'), Buffer.from('1.5').toString('base64url')] },
  types: { expect: 'own-only', values: () => ['report.created,report.updated', 'notification.delivered'] },
  // fetch one / create by B's id
  report_id: {
    expect: 'not-found',
    values: (t) => [
      t.planted.tB,
      t.planted.rB,
      ...bReports(t)
        .slice(0, 2)
        .map((r) => r.token),
    ],
  },
  user_id: {
    expect: 'not-found',
    values: (t) => [
      t.planted.uB,
      t.planted.uB1,
      ...ofB(t, dataset(t).users)
        .slice(0, 2)
        .map((u) => u.id),
    ],
  },
  dealership: { expect: 'not-found', values: (t) => [...ofB(t, dataset(t).dealerships).map((d) => d.id), t.planted.uB, t.b.id] },
};

/**
 * On the root report list, the A rows a B id may match: the planted rX holds B's ids as its own
 * dealership, profile, contact and counter references. Nested pages never match (their parent is A's).
 */
export function plantedMatches(t: Tenants, argumentName: string, value: unknown): string[] {
  const { rX, dB, uB1, cB, tB } = t.planted;
  const planted: Record<string, string> = { dealership_id: dB, profile_id: uB1, contact_id: cB, counter_id: tB };
  return planted[argumentName] === value ? [rX] : [];
}

export function caseFor(argumentName: string, where: string): ArgumentCase {
  const found = ARGUMENT_CASES[argumentName];
  if (!found) throw new Error(`${where}: argument "${argumentName}" has no tenancy case: add it to test/tenancy/argument-cases.ts`);
  return found;
}
