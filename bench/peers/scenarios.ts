/**
 * The three scenarios of `--peers`, as each system asks for them, and what each answer must hold.
 * Every variant turns its body into one normalized shape (tokens in order, total, selected values
 * under our snake_case names), so the run can refuse to compare systems that answer differently.
 */
import { GRAPHQL_PAGE, graphqlFullReportQuery, graphqlTypedSelectionQuery, TOKEN, type Scenario } from '../scenarios';

export type System = 'app' | 'baseline' | 'postgraphile';

export interface Answer {
  tokens: string[];
  total?: number;
  values: unknown[];
}

export interface PeerVariant {
  system: System;
  /** how the system is asked, e.g. "GraphQL" or "REST" */
  via: string;
  request: Scenario;
  answer(body: unknown): Answer;
}

export interface PeerScenario {
  name: string;
  variants: PeerVariant[];
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => value as Json;

/** Timestamps differ in form only (2026-10-31T11:47:42.604Z vs …42.604000+00:00). */
const instant = (value: unknown) => new Date(String(value)).toISOString();

/** A JSON document with sorted keys and no null members: typed GraphQL fields are null where jsonb has no key. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Json)[key];
    if (member !== null && member !== undefined) out[key] = canonical(member);
  }
  return out;
}

const graphqlRequest = (name: string, query: string, headers: Record<string, string>, variables?: Json): Scenario => ({
  name,
  method: 'POST',
  path: '/graphql',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(variables ? { query, variables } : { query }),
  expectStatus: 200,
});
const getRequest = (name: string, path: string, headers: Record<string, string>): Scenario => ({
  name,
  method: 'GET',
  path,
  headers,
  expectStatus: 200,
});

/** GraphQL answers carry `errors` beside (partial) data: a scenario with errors is not the same data. */
function graphqlData(body: unknown): Json {
  const { data, errors } = obj(body);
  if (errors) throw new Error(`GraphQL errors: ${JSON.stringify(errors).slice(0, 300)}`);
  return obj(data);
}

export interface PeerContext {
  organizationId: string;
  /** the report of scenario (b) */
  reportToken: string;
  /** the reports (d) and (f) read, a different one every request */
  reportTokens: readonly string[];
  apiKey: string;
}

/** The request reading a different report each time (bench/measure.ts), the first of them for the same-data check. */
const eachReport = (request: Scenario, tokens: readonly string[]): Scenario => ({ ...request, eachReport: tokens });

export async function buildPeerScenarios(context: PeerContext): Promise<PeerScenario[]> {
  const { organizationId, reportToken, reportTokens, apiKey } = context;
  const key = { 'x-api-key': apiKey };
  // Our order is created_at desc then token asc (src/shared/order-by.ts); PostGraphile's tie-break
  // must be the same for the tokens to come in the same order.
  const pglPage = (selection: string) =>
    `{ reports(first: 100, condition: { organizationId: "${organizationId}", valid: true }, orderBy: [CREATED_AT_DESC, TOKEN_ASC]) { totalCount nodes { ${selection} } } }`;

  // (a) a page with relations
  const pageItem = (token: unknown, createdAt: unknown, dealership: unknown, profile: unknown) => ({
    token,
    created_at: instant(createdAt),
    dealership: dealership ? obj(dealership).name : null,
    profile: profile ? { name: obj(profile).name, email: obj(profile).email } : null,
  });
  const ourGraphqlPage = (body: unknown): Answer => {
    const page = obj(graphqlData(body).reports);
    const items = (page.items as Json[]).map((r) => pageItem(r.token, r.created_at, r.dealership, r.profile));
    return { tokens: items.map((r) => String(r.token)), total: Number(page.total), values: items };
  };
  const graphqlPage: PeerScenario = {
    name: 'GraphQL: page of 100 + total, dealership name, profile name and e-mail',
    variants: [
      { system: 'app', via: 'GraphQL', request: graphqlRequest('app', GRAPHQL_PAGE, key), answer: ourGraphqlPage },
      { system: 'baseline', via: 'GraphQL-shaped', request: graphqlRequest('baseline', GRAPHQL_PAGE, {}), answer: ourGraphqlPage },
      {
        system: 'postgraphile',
        via: 'GraphQL',
        request: graphqlRequest('postgraphile', pglPage('token createdAt dealership { name } profile { name email }'), {}),
        answer: (body) => {
          const page = obj(graphqlData(body).reports);
          const items = (page.nodes as Json[]).map((r) => pageItem(r.token, r.createdAt, r.dealership, r.profile));
          return { tokens: items.map((r) => String(r.token)), total: Number(page.totalCount), values: items };
        },
      },
    ],
  };

  // (b) one report with its whole document: the REST body's fields everywhere
  const ourReport = await graphqlFullReportQuery();
  const pglReport = `query ($token: UUID!) { report(token: $token) {
    token createdAt updatedAt organizationId entityId dealershipId profileId contactId counterId type valid data state realCosts } }`;
  const oneReport = (r: Json): Answer => ({
    tokens: [String(r.token)],
    values: [{ created_at: instant(r.created_at ?? r.createdAt), data: canonical(r.data) }],
  });
  const fetchOne: PeerScenario = {
    name: 'one report with its whole data document',
    variants: [
      {
        system: 'app',
        via: 'GraphQL',
        request: graphqlRequest('app', ourReport, key, { id: reportToken }),
        answer: (body) => oneReport(obj(graphqlData(body).report)),
      },
      { system: 'app', via: 'REST', request: getRequest('app', `/public/reports/${reportToken}`, key), answer: (b) => oneReport(obj(b)) },
      {
        system: 'baseline',
        via: 'REST',
        request: getRequest('baseline', `/public/reports/${reportToken}`, {}),
        answer: (b) => oneReport(obj(b)),
      },
      {
        system: 'postgraphile',
        via: 'GraphQL',
        request: graphqlRequest('postgraphile', pglReport, {}, { token: reportToken }),
        answer: (body) => oneReport(obj(graphqlData(body).report)),
      },
    ],
  };

  // (c) the REST default page: 100 compact rows + total, a row being what our REST shows of it
  const compact = (r: Json, vin: unknown, plate: unknown) => ({
    token: r.token,
    created_at: instant(r.created_at ?? r.createdAt),
    updated_at: instant(r.updated_at ?? r.updatedAt),
    organization_id: r.organization_id ?? r.organizationId,
    dealership_id: r.dealership_id ?? r.dealershipId ?? null,
    vin: vin ?? null,
    license_number: plate ?? null,
  });
  const restPage = (body: unknown): Answer => {
    const page = obj(body);
    const items = (page.items as Json[]).map((r) => {
      const vehicle = obj(obj(r.data).vehicle);
      return compact(r, vehicle.vin, vehicle.license_number);
    });
    return { tokens: items.map((r) => String(r.token)), total: Number(page.total), values: items };
  };
  const pglCompact = 'token createdAt updatedAt organizationId dealershipId vin licenseNumber';
  const defaultPage: PeerScenario = {
    name: 'REST default page: 100 compact rows + total',
    variants: [
      { system: 'app', via: 'REST', request: getRequest('app', '/public/reports/?limit=100', key), answer: restPage },
      { system: 'baseline', via: 'REST', request: getRequest('baseline', '/public/reports/?limit=100', {}), answer: restPage },
      {
        system: 'postgraphile',
        via: 'GraphQL (no REST)',
        request: graphqlRequest('postgraphile', pglPage(pglCompact), {}),
        answer: (body) => {
          const page = obj(graphqlData(body).reports);
          const items = (page.nodes as Json[]).map((r) => compact(r, r.vin, r.licenseNumber));
          return { tokens: items.map((r) => String(r.token)), total: Number(page.totalCount), values: items };
        },
      },
    ],
  };
  // (d) a different report every request, its whole document: what a sync client reads after each change
  const firstReads: PeerScenario = {
    name: 'a different report every request, its whole data document',
    variants: fetchOne.variants.map((variant) => ({
      ...variant,
      request: eachReport(
        {
          ...variant.request,
          path: variant.request.path.replace(reportToken, TOKEN),
          ...(variant.request.body && { body: variant.request.body.replace(reportToken, TOKEN) }),
        },
        reportTokens,
      ),
    })),
  };

  // (e) one report, a typed selection other than REST's (PostGraphile: its whole `data`, the
  // selected parts compared); (f) the same, a different report every request
  const typedQuery = await graphqlTypedSelectionQuery();
  const pglData = `query ($token: UUID!) { report(token: $token) { token updatedAt data } }`;
  // The baseline's bare Apollo Server writes the same selection from one field (bench/baseline-server.ts, `apolloFloor`).
  const apolloFloorQuery = `query ($id: ID!) { report(report_id: $id) }`;
  const typedParts = (r: Json): Answer => {
    const data = obj(r.data);
    const vehicle = obj(data.vehicle);
    const pick = (value: unknown, keys: string[]) => keys.map((k) => obj(value)[k] ?? null);
    return {
      tokens: [String(r.token)],
      values: [
        {
          updated_at: instant(r.updated_at ?? r.updatedAt),
          vin: vehicle.vin ?? null,
          specifications: pick(vehicle.specifications, ['brand', 'model', 'age', 'power']),
          tires: pick(vehicle.tires, ['FLBrand', 'FLDepth']),
          history: pick(vehicle.history, ['numberOfOwners', 'found']),
          metadata: pick(data.metadata, ['name', 'version']),
        },
      ],
    };
  };
  const typedVariants = (token: string): PeerVariant[] => [
    {
      system: 'app',
      via: 'GraphQL',
      request: graphqlRequest('app', typedQuery, key, { id: token }),
      answer: (body) => typedParts(obj(graphqlData(body).report)),
    },
    {
      system: 'baseline',
      via: 'bare Apollo Server',
      request: { ...graphqlRequest('baseline', apolloFloorQuery, {}, { id: token }), path: '/apollo' },
      answer: (body) => typedParts(obj(graphqlData(body).report)),
    },
    {
      system: 'postgraphile',
      via: 'GraphQL (whole data)',
      request: graphqlRequest('postgraphile', pglData, {}, { token }),
      answer: (body) => typedParts(obj(graphqlData(body).report)),
    },
  ];
  const typedOne: PeerScenario = { name: 'one report, a typed selection of its document', variants: typedVariants(reportToken) };
  const typedFirstReads: PeerScenario = {
    name: 'a different report every request, a typed selection of its document',
    variants: typedVariants(TOKEN).map((variant) => ({ ...variant, request: eachReport(variant.request, reportTokens) })),
  };
  return [graphqlPage, fetchOne, defaultPage, firstReads, typedOne, typedFirstReads];
}
