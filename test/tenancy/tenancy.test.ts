/**
 * Tenancy sweep (api-behaviour.md "Reading": a key sees its own organization's data only, on every
 * endpoint and in GraphQL): A's key, over the REST operations of /openapi.json and the fields of
 * the introspected GraphQL schema, never gets B's data — by id, by filter, by search, through a
 * nested relation, nor by creating a lead on B's dealership. The cases are derived from the
 * schema: a new REST operation, root field, argument or relation without a tenancy case fails.
 * B's data is reachable from A's only through the cross-organization references planted by
 * two-tenants.ts, which a missing organization check would follow.
 */
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { getNamedType, isObjectType } from 'graphql';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { introspectSchema } from '../fuzz/fuzz-context';
import { countRows } from '../fuzz/row-counts';
import { caseFor, plantedMatches } from './argument-cases';
import {
  fieldsWithArguments,
  isPage,
  literalArguments,
  nest,
  pathsToTypes,
  relationQueries,
  selectionOf,
  unreachableTypes,
} from './schema-paths';
import { createWebhookEndpoint } from '../../src/features/webhooks/webhooks.service';
import { leaksIn, plantCrossLinks, type Tenants } from './two-tenants';

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown }>>;
}

type Json = Record<string, unknown>;
interface GraphQLBody {
  data?: Json | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

async function restGet(t: Tenants, path: string, query: Record<string, unknown> = {}): Promise<{ status: number; body: Json }> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const response = await fetch(`${t.server.url}${path}${params.size > 0 ? `?${params}` : ''}`, { headers: { 'x-api-key': t.a.key } });
  return { status: response.status, body: (await response.json()) as Json };
}

async function restPost(
  t: Tenants,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${t.server.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': t.a.key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function gql(t: Tenants, query: string, variables: Json = {}, headers: Record<string, string> = {}): Promise<GraphQLBody> {
  const response = await fetch(`${t.server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': t.a.key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as GraphQLBody;
}

/** The values under an alias, wherever it is in the answer (one per parent object). */
function valuesUnder(value: unknown, alias: string): unknown[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesUnder(item, alias));
  const object = value as Json;
  return [...(alias in object ? [object[alias]] : []), ...Object.values(object).flatMap((item) => valuesUnder(item, alias))];
}

const idOf = (item: Json) => (item.token ?? item.id) as string;

describe.each(DATABASE_KINDS)('tenancy: organization A never sees B (%s)', (kind) => {
  let server: TestServer;
  let t: Tenants;
  let schema: GraphQLSchema;
  let openApi: OpenApi;
  /** required arguments on the way to A's planted data */
  let required: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 120 });
    t = await plantCrossLinks(server);
    schema = await introspectSchema(server.url, t.a.key);
    openApi = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApi;
    required = { report_id: t.planted.rX, user_id: t.planted.uA };
  });

  afterAll(async () => {
    await server?.close();
  });

  /** One case per REST operation of the OpenAPI document. */
  const REST_CASES: Record<string, () => Promise<void>> = {
    'GET /public/reports/': () => listSweep('/public/reports/', 'reports'),
    'GET /public/users/': () => listSweep('/public/users/', 'users'),
    'GET /public/dealerships/': () => listSweep('/public/dealerships/', 'dealerships'),
    'GET /public/reports/{report_id}': () => fetchOneSweep('/public/reports/{report_id}', 'report_id', 'Report not found'),
    'GET /public/users/{user_id}': () => fetchOneSweep('/public/users/{user_id}', 'user_id', 'User not found'),
    'POST /public/reports/create-lead': () => restLeadSweep(),
    'GET /public/events/': () => restEventsSweep(),
  };

  /** One case per GraphQL root field. */
  const GRAPHQL_ROOT_CASES: Record<string, () => Promise<void>> = {
    'Query.reports': () => graphqlListTotals('reports', 'reports'),
    'Query.users': () => graphqlListTotals('users', 'users'),
    'Query.dealerships': () => graphqlListTotals('dealerships', 'dealerships'),
    'Query.report': () => graphqlFetchOne('report', 'report_id'),
    'Query.user': () => graphqlFetchOne('user', 'user_id'),
    'Mutation.createLead': () => graphqlLeadSweep(),
    'Query.events': () => graphqlEventsSweep(),
    'Query.webhookEndpoints': () => webhookListSweep(),
    'Mutation.createWebhookEndpoint': () => webhookCreateSweep(),
    'Mutation.rotateWebhookSecret': () => webhookByIdSweep('rotateWebhookSecret'),
    'Mutation.disableWebhookEndpoint': () => webhookByIdSweep('disableWebhookEndpoint'),
    'Mutation.redeliverWebhook': () => webhookByIdSweep('redeliverWebhook'),
  };

  // ---------------------------------------------------------------------------------------------

  /** A's own counts (valid reports, as the list's default), to compare unfiltered totals with. */
  async function ownTotal(table: 'reports' | 'users' | 'dealerships'): Promise<number> {
    const prisma = server.db.prisma;
    if (table === 'reports') return prisma.report.count({ where: { organization_id: t.a.id, valid: true } });
    if (table === 'users') return prisma.user.count({ where: { organization_id: t.a.id } });
    return prisma.dealership.count({ where: { organization_id: t.a.id } });
  }

  async function listSweep(path: string, table: 'reports' | 'users' | 'dealerships'): Promise<void> {
    const unfiltered = await restGet(t, path, { limit: 1000 });
    expect(unfiltered.status).toBe(200);
    expect(leaksIn(t, unfiltered.body)).toEqual([]);
    expect(unfiltered.body.total).toBe(await ownTotal(table));

    const parameters = openApi.paths[path]!.get!.parameters!.filter((p) => p.in === 'query');
    for (const { name } of parameters) {
      const argumentCase = caseFor(name, `GET ${path}`);
      for (const value of argumentCase.values(t)) {
        const query = { limit: 1000, [name]: value };
        const { status, body } = await restGet(t, path, query);
        const context = `GET ${path}?${name}=${JSON.stringify(value)}`;
        const expectedStatus = argumentCase.expect === 'refused' ? 422 : 200;
        expect({ context, status, leaks: leaksIn(t, body) }).toEqual({ context, status: expectedStatus, leaks: [] });
        if (argumentCase.expect === 'none') {
          const expected = table === 'reports' ? plantedMatches(t, name, value) : [];
          const got = (body.items as Json[]).map(idOf);
          expect({ context, got, total: body.total }).toEqual({ context, got: expected, total: expected.length });
        }
      }
    }
  }

  async function fetchOneSweep(template: string, parameter: string, detail: string): Promise<void> {
    for (const value of caseFor(parameter, `GET ${template}`).values(t)) {
      const { status, body } = await restGet(t, template.replace(`{${parameter}}`, String(value)));
      expect({ value, status, body }).toEqual({ value, status: 404, body: { detail } });
    }
  }

  /** A lead on B's dealership (or B's user or organization id) with A's key: 404, nothing written. */
  async function restLeadSweep(): Promise<void> {
    const body = openApi.paths['/public/reports/create-lead']!.post!.requestBody as {
      content: { 'application/json': { schema: { properties: Record<string, { format?: string }> } } };
    };
    const uuidFields = Object.entries(body.content['application/json'].schema.properties)
      .filter(([, s]) => s.format === 'uuid')
      .map(([name]) => name);
    expect(uuidFields.length).toBeGreaterThan(0);
    for (const field of uuidFields) {
      for (const value of caseFor(field, 'POST /public/reports/create-lead').values(t)) {
        const before = await countRows(server.db);
        const response = await restPost(t, '/public/reports/create-lead', { ...t.planted.bLead.body, [field]: value });
        expect({ value, status: response.status, body: response.body }).toEqual({
          value,
          status: 404,
          body: { detail: 'Dealership not found' },
        });
        expect(await countRows(server.db)).toEqual(before);
      }
    }
  }

  /** A's tokens: the only subjects A's change feed may name. */
  function ownTokens(): Set<string> {
    return new Set(server.dataset.reports.filter((r) => r.organization_id === t.a.id).map((r) => r.token));
  }

  /**
   * The feed shows an event once no transaction older than it is open anywhere on the server
   * (docs/events.md): other suites' transactions on the shared PostgreSQL can hold it back a moment.
   */
  const feedHasCaughtUp = () =>
    waitFor(
      async () => {
        const [ofA, ofB] = await Promise.all(
          [t.a.key, t.b.key].map(async (key) => {
            const response = await fetch(`${t.server.url}/public/events/?limit=1000`, { headers: { 'x-api-key': key } });
            return ((await response.json()) as { items: Json[] }).items;
          }),
        );
        return ofA!.length > 0 && ofB!.some((e) => e.subject === t.planted.rB);
      },
      60_000,
      200,
    );

  /** The change feed with every argument's values: A's events only, with nothing of B in them. */
  async function restEventsSweep(): Promise<void> {
    const own = ownTokens();
    await feedHasCaughtUp();
    const unfiltered = await restGet(t, '/public/events/', { limit: 1000 });
    expect(unfiltered.status).toBe(200);
    // The planted cross-links wrote events too (A's rX moved onto B's dealership, B's rB onto A's).
    expect((unfiltered.body.items as Json[]).length).toBeGreaterThan(0);
    const parameters = openApi.paths['/public/events/']!.get!.parameters!.filter((p) => p.in === 'query');
    for (const { name } of parameters) {
      for (const value of caseFor(name, 'GET /public/events/').values(t)) {
        const { status, body } = await restGet(t, '/public/events/', { limit: 1000, [name]: value });
        const context = `GET /public/events/?${name}=${JSON.stringify(value)}`;
        const strangers = (body.items as Json[]).map((e) => e.subject as string).filter((subject) => !own.has(subject));
        expect({ context, status, leaks: leaksIn(t, body), strangers }).toEqual({ context, status: 200, leaks: [], strangers: [] });
      }
    }
    // B reads its own feed with its own key, A's key never shows it.
    const fromB = await fetch(`${t.server.url}/public/events/?limit=1000`, { headers: { 'x-api-key': t.b.key } });
    const bSubjects = ((await fromB.json()) as { items: Json[] }).items.map((e) => e.subject as string);
    expect(bSubjects).toContain(t.planted.rB);
    expect((unfiltered.body.items as Json[]).some((e) => bSubjects.includes(e.subject as string))).toBe(false);
  }

  async function graphqlEventsSweep(): Promise<void> {
    const own = ownTokens();
    await feedHasCaughtUp();
    const result = await gql(t, `{ events(limit: 1000) { items { cursor position type subject occurred_at payload } next } }`);
    expect(result.errors).toBeUndefined();
    expect(leaksIn(t, result.data)).toEqual([]);
    const items = (result.data!.events as { items: Json[] }).items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.filter((e) => !own.has(e.subject as string))).toEqual([]);
  }

  let bEndpoint: { id: string; secret: string } | undefined;
  /** A webhook endpoint of B, made once. */
  async function endpointOfB() {
    bEndpoint ??= await createWebhookEndpoint(server.db.prisma, t.b.id, { url: 'http://127.0.0.1:9/b-only' }, { allowPrivate: true });
    return bEndpoint;
  }

  async function webhookListSweep(): Promise<void> {
    const b = await endpointOfB();
    const result = await gql(t, `{ webhookEndpoints { id url types status cursor delivered_count dead_letters } }`);
    expect(result.errors).toBeUndefined();
    expect(leaksIn(t, result.data)).toEqual([]);
    expect(JSON.stringify(result.data)).not.toContain(b.id);
    expect(JSON.stringify(result.data)).not.toContain('b-only');
  }

  async function webhookCreateSweep(): Promise<void> {
    const result = await gql(t, `mutation { createWebhookEndpoint(url: "http://127.0.0.1:9/a-hook") { id secret } }`);
    expect(result.errors).toBeUndefined();
    const id = (result.data!.createWebhookEndpoint as Json).id as string;
    const rows = await server.db.prisma.$queryRawUnsafe<{ organization_id: string }[]>(
      'SELECT organization_id::text AS organization_id FROM webhook_endpoints WHERE id = $1::uuid',
      id,
    );
    expect(rows).toEqual([{ organization_id: t.a.id }]);
  }

  /** B's endpoint by id with A's key: NOT_FOUND, and B's endpoint untouched. */
  async function webhookByIdSweep(field: string): Promise<void> {
    const b = await endpointOfB();
    const before = await server.db.prisma.$queryRawUnsafe<Json[]>('SELECT * FROM webhook_endpoints WHERE id = $1::uuid', b.id);
    const result = await gql(t, `mutation ($id: UUID!) { ${field}(id: $id) { id } }`, { id: b.id });
    expect({ data: result.data, codes: result.errors?.map((e) => e.extensions?.code) }).toEqual({ data: null, codes: ['NOT_FOUND'] });
    const after = await server.db.prisma.$queryRawUnsafe<Json[]>('SELECT * FROM webhook_endpoints WHERE id = $1::uuid', b.id);
    expect(after).toEqual(before);
  }

  async function graphqlListTotals(field: string, table: 'reports' | 'users' | 'dealerships'): Promise<void> {
    const target = getNamedType(schema.getQueryType()!.getFields()[field]!.type);
    if (!isObjectType(target)) throw new Error(`Query.${field} is not an object`);
    const result = await gql(t, `{ ${field}(limit: 1000) { ${selectionOf(target, 1)} } }`);
    expect(result.errors).toBeUndefined();
    expect(leaksIn(t, result.data)).toEqual([]);
    expect((result.data![field] as Json).total).toBe(await ownTotal(table));
  }

  async function graphqlFetchOne(field: string, argument: string): Promise<void> {
    const rootField = schema.getQueryType()!.getFields()[field]!;
    const target = getNamedType(rootField.type);
    if (!isObjectType(target)) throw new Error(`Query.${field} is not an object`);
    const type = rootField.args.find((a) => a.name === argument)!.type.toString();
    for (const value of caseFor(argument, `Query.${field}`).values(t)) {
      const result = await gql(t, `query ($value: ${type}) { ${field}(${argument}: $value) { ${selectionOf(target, 1)} } }`, { value });
      expect({ value, data: result.data, codes: result.errors?.map((e) => e.extensions?.code) }).toEqual({
        value,
        data: { [field]: null },
        codes: ['NOT_FOUND'],
      });
    }
  }

  async function graphqlLeadSweep(): Promise<void> {
    const createLead = schema.getMutationType()!.getFields().createLead!;
    const uuidArguments = createLead.args.filter((a) => getNamedType(a.type).name === 'UUID');
    expect(uuidArguments.length).toBeGreaterThan(0);
    for (const arg of uuidArguments) {
      for (const value of caseFor(arg.name, 'Mutation.createLead').values(t)) {
        const before = await countRows(server.db);
        const result = await gql(
          t,
          `mutation ($value: ${arg.type.toString()}) { createLead(${arg.name}: $value, name: "x") { token link } }`,
          { value },
        );
        expect({ value, data: result.data, codes: result.errors?.map((e) => e.extensions?.code) }).toEqual({
          value,
          data: null,
          codes: ['NOT_FOUND'],
        });
        expect(await countRows(server.db)).toEqual(before);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  it('has a case for every REST operation and every GraphQL root field, and reaches every object type', () => {
    const operations = Object.entries(openApi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(Object.keys(REST_CASES).sort());
    const rootFields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
      Object.keys(type?.getFields() ?? {}).map((name) => `${type!.name}.${name}`),
    );
    expect(rootFields.sort()).toEqual(Object.keys(GRAPHQL_ROOT_CASES).sort());
    // Types only a mutation returns are covered by the mutation's own case.
    const mutationResults = Object.values(schema.getMutationType()?.getFields() ?? {}).map((f) => getNamedType(f.type).name);
    expect(unreachableTypes(schema, pathsToTypes(schema, required)).filter((name) => !mutationResults.includes(name))).toEqual([]);
  });

  it.each([
    'GET /public/reports/',
    'GET /public/users/',
    'GET /public/dealerships/',
    'GET /public/reports/{report_id}',
    'GET /public/users/{user_id}',
    'POST /public/reports/create-lead',
    'GET /public/events/',
  ])('REST %s: B by id, by every filter, by search: nothing of B', async (operation) => {
    await REST_CASES[operation]!();
  });

  it.each([
    'Query.reports',
    'Query.users',
    'Query.dealerships',
    'Query.report',
    'Query.user',
    'Mutation.createLead',
    'Query.events',
    'Query.webhookEndpoints',
    'Mutation.createWebhookEndpoint',
    'Mutation.rotateWebhookSecret',
    'Mutation.disableWebhookEndpoint',
    'Mutation.redeliverWebhook',
  ])('GraphQL %s: nothing of B', async (field) => {
    await GRAPHQL_ROOT_CASES[field]!();
  });

  it('GraphQL: B’s values in every argument of every field, root and nested', async () => {
    let swept = 0;
    for (const { owner, field, parent } of fieldsWithArguments(schema, required)) {
      const target = getNamedType(field.type);
      // fetch-one fields are swept by their root case; here, the filters of pages
      if (!isPage(target)) continue;
      for (const arg of field.args) {
        const argumentCase = caseFor(arg.name, `${owner}.${field.name}`);
        for (const value of argumentCase.values(t)) {
          // a large page at the root, a smaller one under a list of parents (the cost budget multiplies them)
          const others = literalArguments(
            { ...field, args: field.args.filter((a) => a.name !== arg.name) },
            required,
            parent.length === 0 ? 1000 : 100,
          );
          const args = `${arg.name}: $value${others ? `, ${others.slice(1, -1)}` : ''}`;
          const itemType = getNamedType(target.getFields().items!.type) as GraphQLObjectType;
          // A cursor page (the change feed) has no total.
          const envelope = target.getFields().total ? 'total' : '';
          const inner = `swept: ${field.name}(${args}) { ${envelope} items { ${selectionOf(itemType, 0)} } }`;
          const query = `query ($value: ${arg.type.toString()}) { ${nest(parent, inner)} }`;
          const result = await gql(t, query, { value });
          const context = `${owner}.${field.name}(${arg.name}: ${JSON.stringify(value)})`;
          if (argumentCase.expect === 'refused') {
            const codes = (result.errors ?? []).map((e) => e.extensions?.code);
            expect({ context, codes, leaks: leaksIn(t, result.data) }).toEqual({ context, codes: ['BAD_USER_INPUT'], leaks: [] });
            swept += 1;
            continue;
          }
          expect({ context, errors: result.errors, leaks: leaksIn(t, result.data) }).toEqual({ context, errors: undefined, leaks: [] });
          if (argumentCase.expect === 'none') {
            const expected = owner === 'Query' ? plantedMatches(t, arg.name, value) : [];
            const pages = valuesUnder(result.data, 'swept') as { items: Json[]; total: number }[];
            expect({ context, pages: pages.length > 0 }).toEqual({ context, pages: true });
            for (const page of pages) {
              expect({ context, got: page.items.map(idOf), total: page.total }).toEqual({ context, got: expected, total: expected.length });
            }
          }
          swept += 1;
        }
      }
    }
    expect(swept).toBeGreaterThan(50);
  });

  it('GraphQL: every relation of every type, reached from A’s data that points at B, returns nothing of B', async () => {
    const queries = relationQueries(schema, required);
    expect(queries.length).toBeGreaterThan(10);
    for (const { relation, query } of queries) {
      const result = await gql(t, query);
      expect({ relation, errors: result.errors, leaks: leaksIn(t, result.data) }).toEqual({ relation, errors: undefined, leaks: [] });
    }
  });

  it('the planted references to B resolve to nothing, in GraphQL and REST', async () => {
    const { rX, uA, dA, rB, uB } = t.planted;
    const report = await gql(
      t,
      `{ report(report_id: "${rX}") { dealership { id } profile { id } contact { id } counter { token } notifications { id } organization { id } } }`,
    );
    expect(report).toEqual({
      data: { report: { dealership: null, profile: null, contact: null, counter: null, notifications: [], organization: { id: t.a.id } } },
    });
    const listed = await gql(
      t,
      `{ reports(token: "${rX}") { items { dealership { id } profile { id } contact { id } counter { token } } } }`,
    );
    expect(listed).toEqual({ data: { reports: { items: [{ dealership: null, profile: null, contact: null, counter: null }] } } });
    const user = await gql(t, `{ user(user_id: "${uA}") { dealership { id } reports(limit: 1000) { items { token } } } }`);
    expect(user.data!.user).toMatchObject({ dealership: null });
    expect(((user.data!.user as Json).reports as { items: Json[] }).items.map(idOf)).not.toContain(rB);

    const dealerships = await gql(
      t,
      `{ dealerships(limit: 100) { items { id user_count users(limit: 100) { items { id } } reports(limit: 100) { items { token } } } } }`,
    );
    const dealership = (dealerships.data!.dealerships as { items: Json[] }).items.find((d) => d.id === dA)!;
    expect((dealership.users as { items: Json[] }).items.map(idOf)).not.toContain(uB);
    expect((dealership.reports as { items: Json[] }).items.map(idOf)).not.toContain(rB);
    // user_count counts A's active users of the dealership, not B's user planted on it
    const ownActive = await server.db.prisma.user.count({ where: { organization_id: t.a.id, dealership_id: dA, is_active: true } });
    expect(dealership.user_count).toBe(ownActive);
    const restDealership = ((await restGet(t, '/public/dealerships/', { limit: 1000 })).body.items as Json[]).find((d) => d.id === dA)!;
    expect(restDealership.user_count).toBe(ownActive);

    // REST list item's profile (spec 2.2) of rX: B's user, so null
    const restList = await restGet(t, '/public/reports/', { token: rX });
    expect((restList.body.items as Json[])[0]!.profile ?? null).toBeNull();

    // Sorting by dealership name sorts rX as a report without a dealership (NULLs last), not by B's name.
    const sorted = await gql(t, `{ reports(limit: 1000, order_by: "dealership_name") { items { token dealership { id } } } }`);
    const items = (sorted.data!.reports as { items: { token: string; dealership: Json | null }[] }).items;
    const firstWithout = items.findIndex((item) => item.dealership === null);
    expect(items.slice(firstWithout).every((item) => item.dealership === null)).toBe(true);
    expect(items.findIndex((item) => item.token === rX)).toBeGreaterThanOrEqual(firstWithout);
  });

  it('an Idempotency-Key B used does not replay B’s lead for A, and A’s own lead under it is A’s', async () => {
    const { bLead } = t.planted;
    const before = await countRows(server.db);
    // B's exact request, with A's key: A may not create on B's dealership, and gets no replay of B's answer
    const replayed = await restPost(t, '/public/reports/create-lead', bLead.body, { 'idempotency-key': bLead.idempotencyKey });
    expect(replayed).toEqual({ status: 404, body: { detail: 'Dealership not found' } });
    expect(await countRows(server.db)).toEqual(before);
    // the same key on A's own dealership: a new lead of A, not B's token
    const own = await restPost(
      t,
      '/public/reports/create-lead',
      { ...bLead.body, dealership: t.planted.dA },
      { 'idempotency-key': bLead.idempotencyKey },
    );
    expect(own.status).toBe(201);
    expect(own.body.token).not.toBe(bLead.token);
    const created = await server.db.prisma.report.findUniqueOrThrow({
      where: { token: own.body.token as string },
      select: { organization_id: true },
    });
    expect(created.organization_id).toBe(t.a.id);
    // and GraphQL with B's key on B's idempotency key still replays B's own lead only for B
    const bReplay = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': t.b.key, 'content-type': 'application/json', 'idempotency-key': bLead.idempotencyKey },
      body: JSON.stringify(bLead.body),
    });
    expect(((await bReplay.json()) as Json).token).toBe(bLead.token);
  });
});
