/**
 * Random filter combinations, orderings and pages of GET /public/reports/ (and /public/users/),
 * compared with the in-memory reading of api-behaviour.md (filters-oracle.ts). Values are drawn from
 * the seeded dataset so that most filters hit data (real VINs, plates, brands, names, dates,
 * JSON fragments of real documents, of both organizations), mixed with values that miss.
 * Fixed seed: a failure reproduces; fast-check prints the shrunk counterexample.
 */
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/server';
import { buildDemoDataset, REPORT_TYPES } from '../../src/seed/dataset';
import { STATE_KEYS } from '../../src/seed/report-document';
import { REPORT_ORDER_FIELDS } from '../../src/features/reports/report-list-columns';
import { USER_ORDER_FIELDS } from '../../src/features/users/user.types';
import {
  expectedReports,
  expectedUsers,
  getJson,
  queryString,
  reportFacts,
  type PageBody,
  type PageInput,
  type ReportFacts,
  type ReportFilterInput,
  type UserFilterInput,
} from './filters-oracle';

const REPORTS = 400;
const SEED = 20261122;
const RUNS = 100;

// The arbitraries draw from the same deterministic dataset the server is seeded with.
const dataset = buildDemoDataset({ reports: REPORTS });
const facts = reportFacts(dataset);

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Present with probability ~1/`oneIn`, else absent. */
const sometimes = <T>(arb: fc.Arbitrary<T>, oneIn = 5): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: arb, weight: 1 }, { arbitrary: fc.constant(undefined), weight: oneIn - 1 });

const aReport = fc.constantFrom(...facts);
const ms = (d: Date, delta: number) => new Date(d.getTime() + delta);

/** A real instant, one millisecond either side of it, or a point between two reports. */
const instantNear = (pick: (r: ReportFacts) => Date): fc.Arbitrary<Date> =>
  fc.tuple(aReport, fc.constantFrom(-1, 0, 0, 0, 1)).map(([r, delta]) => ms(pick(r), delta));

const randomUuid = fc.uuid({ version: 4 });

/** Spaces and dashes inserted, case changed: the same identifier for vin / license_number. */
const identifierVariant = (value: string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.boolean(), fc.array(fc.tuple(fc.nat(value.length), fc.constantFrom(' ', '-', ' - ')), { maxLength: 3 }))
    .map(([lowerCase, inserts]) => {
      let out = lowerCase ? value.toLowerCase() : value;
      for (const [at, separator] of inserts.sort((a, b) => b[0] - a[0])) out = out.slice(0, at) + separator + out.slice(at);
      return out;
    });

const identifier = (pick: (r: ReportFacts) => string | null): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: aReport.chain((r) => identifierVariant(pick(r) ?? 'NONE')) },
    { weight: 1, arbitrary: aReport.map((r) => (pick(r) ?? 'NONE').slice(0, 5)) }, // a prefix: exact match fails
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
  );

const caseVariant = (value: string): fc.Arbitrary<string> => fc.constantFrom(value, value.toLowerCase(), value.toUpperCase());

/** A piece of a real text in some case, sometimes a text found nowhere. */
const substringOf = (texts: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(fc.constantFrom(...texts), fc.nat(), fc.integer({ min: 1, max: 12 })).chain(([text, start, length]) => {
        const from = start % text.length;
        return caseVariant(text.slice(from, from + length));
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('zzq', '%', '_', 'a_b', 'mistral%', '\\') },
  );

const organizationNames = dataset.organizations.map((o) => o.name);
const entityNames = dataset.entities.map((e) => e.name);
const dealershipNames = dataset.dealerships.map((d) => d.name);

const searchedFields = (r: ReportFacts): string[] =>
  [r.vin, r.license_number, r.brand, r.model, r.client_name, r.client_email, r.client_phone, r.folder_name, r.dealership_name].filter(
    (text): text is string => text !== null,
  );

/** 1 to 3 terms, each a piece of a field of some report (terms of one report often share a match). */
const searchText: fc.Arbitrary<string> = aReport.chain((r) =>
  fc
    .array(
      fc.oneof({ weight: 6, arbitrary: substringOf(searchedFields(r)) }, { weight: 1, arbitrary: substringOf(searchedFields(facts[0]!)) }),
      {
        minLength: 1,
        maxLength: 3,
      },
    )
    .map((terms) => terms.join(' ')),
);

/** A fragment of a real `data` document, or one that matches nothing. */
const dataFragment: fc.Arbitrary<unknown> = aReport.chain((r) => {
  const d = r.row.data;
  return fc.constantFrom<unknown>(
    { vehicle: { specifications: { brand: d.vehicle.specifications.brand } } },
    { vehicle: { specifications: { fuel: d.vehicle.specifications.fuel, doors: d.vehicle.specifications.doors } } },
    { vehicle: { specifications: { year: d.vehicle.specifications.year } } },
    { metadata: { version: d.metadata.version, type: d.metadata.type } },
    { metadata: { individual: { city: d.metadata.individual.city } } },
    { metadata: { data_provider: d.metadata.data_provider } },
    { vehicle: { damages: d.vehicle.damages.slice(0, 1).map((damage) => ({ zone: damage.zone })) } },
    { vehicle: { vin: d.vehicle.vin } },
    { valuations: { currency: 'EUR' } },
    { vehicle: { specifications: { brand: d.vehicle.specifications.brand.toLowerCase() } } }, // case matters: misses
    { metadata: { nothing: true } },
  );
});

const stateFragment: fc.Arbitrary<unknown> = fc
  .tuple(fc.constantFrom(...STATE_KEYS), fc.boolean(), fc.boolean())
  .map(([key, status, withOther]) => (withOther ? { [key]: { status }, folder_created: { status: true } } : { [key]: { status } }));

/** One arbitrary per report filter; each value hits data more often than not. */
const FILTER_VALUES: Record<keyof ReportFilterInput, fc.Arbitrary<unknown>> = {
  created_at__gte: instantNear((r) => r.row.created_at),
  created_at__lte: instantNear((r) => r.row.created_at),
  updated_at__gte: instantNear((r) => r.row.updated_at),
  updated_at__lte: instantNear((r) => r.row.updated_at),
  organization_id: fc.oneof(fc.constantFrom(...dataset.organizations.map((o) => o.id)), randomUuid),
  dealership_id: fc.oneof(fc.constantFrom(...dataset.dealerships.map((d) => d.id)), randomUuid),
  entity_id: fc.constantFrom(...dataset.entities.map((e) => e.id)),
  profile_id: fc.constantFrom(...dataset.users.map((u) => u.id)),
  // the seeded reports have no contact (only leads do): this one always misses
  contact_id: randomUuid,
  counter_id: aReport.map((r) => r.row.counter_id ?? r.row.token),
  token: aReport.map((r) => r.row.token),
  vin: identifier((r) => r.vin),
  license_number: identifier((r) => r.license_number),
  brand: fc.oneof(
    aReport.chain((r) => caseVariant(r.brand ?? 'none')),
    aReport.map((r) => (r.brand ?? 'none').slice(0, 3)),
  ),
  version: fc.oneof(
    aReport.map((r) => r.version ?? ''),
    fc.constant('5.2'),
  ),
  organization_name: substringOf(organizationNames),
  dealership_name: substringOf(dealershipNames),
  entity_name: substringOf(entityNames),
  search: searchText,
  valid: fc.boolean(),
  type: fc.constantFrom(...REPORT_TYPES),
  data__contains: dataFragment,
  state__contains: stateFragment,
  state__not_contains: stateFragment,
};

/** Up to three filters at once: more than that and nearly every combination is empty. */
const reportFilters: fc.Arbitrary<ReportFilterInput> = fc
  .uniqueArray(fc.constantFrom(...(Object.keys(FILTER_VALUES) as (keyof ReportFilterInput)[])), { maxLength: 3 })
  .chain((names) =>
    fc.record(Object.fromEntries(names.map((name) => [name, FILTER_VALUES[name]])) as Record<string, fc.Arbitrary<unknown>>),
  )
  .map((record) => record as ReportFilterInput);

const orderBy = (fields: readonly string[]): fc.Arbitrary<string | undefined> =>
  sometimes(
    fc
      .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 3 })
      .chain((chosen) => fc.tuple(...chosen.map((field) => fc.constantFrom(field, `-${field}`))))
      .map((terms) => terms.join(',')),
    4,
  ).map((value) => value);

const pageOf = (fields: readonly string[]): fc.Arbitrary<PageInput> =>
  fc
    .record({
      limit: fc.constantFrom<number | undefined>(undefined, 0, 1, 7, 25, 1000),
      offset: fc.constantFrom<number | undefined>(undefined, 0, 3, 20),
      order_by: orderBy(fields),
    })
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as PageInput);

const userFilters: fc.Arbitrary<UserFilterInput> = fc
  .record({
    created_at__gte: sometimes(fc.constantFrom(...dataset.users.map((u) => u.created_at)), 3),
    created_at__lte: sometimes(fc.constantFrom(...dataset.users.map((u) => ms(u.created_at, 1))), 3),
    organization_id: sometimes(fc.constantFrom(...dataset.organizations.map((o) => o.id)), 5),
    entity_id: sometimes(fc.constantFrom(...dataset.entities.map((e) => e.id)), 4),
  })
  .map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as UserFilterInput);

// ---------------------------------------------------------------------------------------------

describe.each(['pglite', 'postgres'] as const)('report filters against the spec oracle (%s)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: REPORTS });
    // The arbitraries were built from this same dataset: make sure it is.
    expect(server.dataset.reports.map((r) => r.token)).toEqual(dataset.reports.map((r) => r.token));
  });

  afterAll(async () => {
    await server?.close();
  });

  it("random filters, orderings and pages give the oracle's items and total", async () => {
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(dataset.organizations.length - 1), reportFilters, pageOf(REPORT_ORDER_FIELDS), async (org, filters, page) => {
        const url = `${server.url}/public/reports/${queryString({ ...filters, ...page })}`;
        const { status, body } = await getJson<PageBody<{ token: string }>>(url, server.keys[org]!);
        expect(status).toBe(200);
        const expected = expectedReports(facts, dataset.organizations[org]!.id, filters, page);
        expect({ tokens: body.items.map((item) => item.token), total: body.total }).toEqual(expected);
        if (expected.total > 0) nonEmpty += 1;
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generators must mostly hit data, or the comparison proves little.
    expect(nonEmpty).toBeGreaterThan(RUNS / 3);
  });

  it("random user filters and orderings give the oracle's items and total", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(dataset.organizations.length - 1), userFilters, pageOf(USER_ORDER_FIELDS), async (org, filters, page) => {
        const { status, body } = await getJson<PageBody<{ id: string }>>(
          `${server.url}/public/users/${queryString({ ...filters, ...page })}`,
          server.keys[org]!,
        );
        expect(status).toBe(200);
        const expected = expectedUsers(dataset.users, dataset.organizations[org]!.id, filters, page);
        expect({ ids: body.items.map((item) => item.id), total: body.total }).toEqual(expected);
      }),
      { seed: SEED, numRuns: 30 },
    );
  });
});
