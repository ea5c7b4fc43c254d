/**
 * The benchmark's requests, with values taken from the loaded data so that every filter hits
 * rows: the organization under test is the one with the most reports.
 */
import { isObjectType } from 'graphql';
import { buildAppSchema } from '../src/api/graphql/schema';
import type { PrismaClient } from '../src/generated/prisma/client';
import { restSelectionOf } from '../src/shared/schema/rest-visibility';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  expectStatus: number;
  /** the same work on the baseline server; absent when there is none */
  baseline?: Scenario;
  /**
   * A different report every request: `TOKEN` in the path and body stands for the next of these
   * (in turn, from a random start), as a sync client reads each report once after it changed.
   */
  eachReport?: readonly string[];
}

/** What stands for the report of a request in a scenario that reads `eachReport`. */
export const TOKEN = '00000000-0000-4000-8000-00000000face';

/** The GraphQL page, the same selection as PostGraphile's in `--peers` (bench/peers/scenarios.ts). */
export const GRAPHQL_PAGE = `{ reports(limit: 100) { total items { token created_at dealership { name } profile { name email } } } }`;

/** One full report over GraphQL, selecting the REST body's fields (`$id`): (b) of the peers too. */
export async function graphqlFullReportQuery(): Promise<string> {
  const reportType = (await buildAppSchema()).getType('Report');
  if (!isObjectType(reportType)) throw new Error('the schema has no Report type');
  return `query ($id: UUID!) { report(report_id: $id) { ${restSelectionOf(reportType)} } }`;
}

/**
 * One report over GraphQL with a typed selection other than REST's: the parts of the document a
 * front end shows (the vehicle's specifications, tires and history, the metadata), typed.
 */
export async function graphqlTypedSelectionQuery(): Promise<string> {
  const schema = await buildAppSchema();
  const whole = (name: string) => {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`the schema has no ${name} type`);
    return restSelectionOf(type);
  };
  return `query ($id: UUID!) { report(report_id: $id) { token updated_at data { vehicle { vin specifications { ${whole('VehicleSpecifications')} } tires { ${whole('VehicleTires')} } history { ${whole('VehicleHistory')} } } metadata { ${whole('ReportMetadata')} } } } }`;
}

export interface Prepared {
  deepCursor: string;
  etag: string;
}

export async function buildScenarios(prisma: PrismaClient, loadedReports: number) {
  const [biggest] = await prisma.$queryRaw<{ organization_id: string; n: number }[]>`
    SELECT organization_id, count(*)::int AS n FROM reports GROUP BY organization_id ORDER BY n DESC LIMIT 1`;
  const organizationId = biggest!.organization_id;
  const organizationReports = Number(biggest!.n);
  // A report from the middle of the history: its VIN, its client and brand for `search`. An
  // inspected one: the leads a run of create-lead leaves in a kept database have no vehicle yet.
  const [sample] = await prisma.$queryRaw<
    { token: string; vin: string; license_number: string; brand: string; client_name: string; created_at: Date }[]
  >`
    SELECT token, vin, license_number, brand, client_name, created_at FROM reports
    WHERE organization_id = ${organizationId}::uuid AND valid
      AND vin IS NOT NULL AND license_number IS NOT NULL AND brand IS NOT NULL AND client_name IS NOT NULL
    ORDER BY created_at DESC OFFSET ${Math.floor(organizationReports / 3)} LIMIT 1`;
  const dealership = await prisma.dealership.findFirstOrThrow({ where: { organization_id: organizationId }, orderBy: { position: 'asc' } });
  const profile = await prisma.report.findFirstOrThrow({
    where: { organization_id: organizationId, profile_id: { not: null } },
    select: { profile_id: true },
  });
  const to = sample!.created_at;
  const from = new Date(to.getTime() - 30 * 86_400_000);
  const lastName = sample!.client_name.split(' ').pop()!;
  const deepOffset = Math.min(50_000, Math.floor(organizationReports / 2));
  // Issue 26: a sync client deep in the organization's reports, by cursor and by offset.
  const ninetyPercent = Math.floor(organizationReports * 0.9);
  const graphqlOneReport = await graphqlFullReportQuery();
  const graphqlTypedSelection = await graphqlTypedSelectionQuery();

  /** What the scenarios need from the running app: the cursor at 90 % and the sample report's ETag. */
  const prepare = async (appUrl: string, apiKey: string): Promise<Prepared> => {
    const headers = { 'x-api-key': apiKey };
    // The cursor after row 90 % - 1: made once by an offset page (its cost is not measured).
    const page = await fetch(`${appUrl}/public/reports/?limit=1&offset=${ninetyPercent - 1}`, { headers });
    const { next_cursor: deepCursor } = (await page.json()) as { next_cursor: string };
    const one = await fetch(`${appUrl}/public/reports/${sample!.token}`, { headers });
    await one.text();
    return { deepCursor, etag: one.headers.get('etag')! };
  };

  const list = (apiKey: string, prepared?: Prepared): Scenario[] => {
    const headers = { 'x-api-key': apiKey };
    const get = (name: string, pathAndQuery: string): Scenario => {
      const scenario: Scenario = { name, method: 'GET', path: pathAndQuery, headers, expectStatus: 200 };
      return { ...scenario, baseline: { ...scenario, headers: {} } };
    };
    const q = (params: Record<string, string>) => `/public/reports/?${new URLSearchParams(params).toString()}`;
    const leadBody = JSON.stringify({ dealership: dealership.id, name: 'Bench Client', folder_name: 'bench' });
    const graphqlBody = JSON.stringify({ query: GRAPHQL_PAGE });
    return [
      get('list: default page (100)', '/public/reports/'),
      get('list: created_at range (30 days)', q({ created_at__gte: from.toISOString(), created_at__lte: to.toISOString() })),
      get('list: vin', q({ vin: sample!.vin.toLowerCase() })),
      get('list: license_number', q({ license_number: sample!.license_number.toLowerCase() })),
      get('list: brand', q({ brand: sample!.brand.toLowerCase() })),
      get('list: dealership_name', q({ dealership_name: 'lyon' })),
      get('list: dealership_id', q({ dealership_id: dealership.id })),
      get('list: type=remote', q({ type: 'remote' })),
      get('list: profile_id', q({ profile_id: profile.profile_id! })),
      get('list: valid=false', q({ valid: 'false' })),
      get('list: data__contains', q({ data__contains: JSON.stringify({ vehicle: { specifications: { fuel: 'Électrique' } } }) })),
      get('list: state__not_contains', q({ state__not_contains: JSON.stringify({ folder_sold: { status: true } }) })),
      get('list: search (2 terms)', q({ search: `${lastName.toLowerCase()} ${sample!.brand.toLowerCase()}` })),
      get(`list: deep offset ${deepOffset}`, q({ offset: String(deepOffset) })),
      get('fetch one', `/public/reports/${sample!.token}`),
      ...(prepared
        ? [
            // The app only: the baseline has neither cursors nor ETags.
            { ...get(`list: cursor at 90% (${ninetyPercent})`, q({ cursor: prepared.deepCursor })), baseline: undefined },
            { ...get(`list: offset at 90% (${ninetyPercent})`, q({ offset: String(ninetyPercent) })), baseline: undefined },
            {
              name: 'fetch one: 304 (If-None-Match)',
              method: 'GET' as const,
              path: `/public/reports/${sample!.token}`,
              headers: { ...headers, 'if-none-match': prepared.etag },
              expectStatus: 304,
            },
          ]
        : []),
      {
        name: 'GraphQL page 100 + relations',
        method: 'POST',
        path: '/graphql',
        headers: { ...headers, 'content-type': 'application/json' },
        body: graphqlBody,
        expectStatus: 200,
        baseline: {
          name: 'graphql',
          method: 'POST',
          path: '/graphql',
          headers: { 'content-type': 'application/json' },
          body: graphqlBody,
          expectStatus: 200,
        },
      },
      {
        // The app only: (b) of the peers, one report selecting the REST body's fields.
        name: 'GraphQL one report',
        method: 'POST',
        path: '/graphql',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: graphqlOneReport, variables: { id: sample!.token } }),
        expectStatus: 200,
      },
      {
        // The app only: (f) of the peers, a typed selection of a different report every request.
        name: 'GraphQL typed selection, first reads',
        method: 'POST',
        path: '/graphql',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ query: graphqlTypedSelection, variables: { id: TOKEN } }),
        expectStatus: 200,
        eachReport: reportTokens,
      },
      {
        name: 'create-lead',
        method: 'POST',
        path: '/public/reports/create-lead',
        headers: { ...headers, 'content-type': 'application/json' },
        body: leadBody,
        expectStatus: 201,
        baseline: {
          name: 'create-lead',
          method: 'POST',
          path: '/public/reports/create-lead',
          headers: { 'content-type': 'application/json' },
          body: leadBody,
          expectStatus: 201,
        },
      },
    ];
  };
  // The reports a first-read scenario goes through, one per request: inspected ones, in no order.
  const reportTokens = (
    await prisma.$queryRaw<{ token: string }[]>`
      SELECT token::text FROM reports WHERE organization_id = ${organizationId}::uuid AND valid AND vin IS NOT NULL
      ORDER BY md5(token::text) LIMIT 50000`
  ).map((row) => row.token);
  return { organizationId, organizationReports, loadedReports, sampleToken: sample!.token, reportTokens, list, prepare };
}
