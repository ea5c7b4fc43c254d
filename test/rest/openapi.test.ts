/**
 * The OpenAPI document is generated from what the REST layer runs on (routes, field arguments,
 * constraint table, response selection), so it is checked against those same sources, and a
 * throwaway schema shows that a new argument is documented AND validated with no REST change.
 */
import { ApiKeyAuthenticator } from '../../src/features/auth/api-key-cache';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { buildSchema, getNamedType, isNonNullType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { rootFieldOf } from '../../src/api/rest/rest-documents';
import { buildOpenApiDocument } from '../../src/api/openapi/openapi-document';
import { restRouter } from '../../src/api/rest/rest-router';
import { locationOf, REST_ROUTES, templateOf } from '../../src/api/rest/routes';
import { createConcurrencyLimiter } from '../../src/platform/rate-limit/concurrency-limiter';
import { createRateLimits } from '../../src/platform/rate-limit/rate-limiter';
import { validateArguments } from '../../src/api/contract/validation/validate-arguments';
import { rulesOf } from '../../src/shared/schema/input-rules';
import { startTestServer, type TestServer } from '../support/server';
import { validateWithSwaggerParser } from './swagger-parser-validate';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON, walked by key */
type Doc = any;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationsOf(doc: Doc): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function operation(doc: Doc, method: string, path: string): Doc {
  const found = doc.paths[path]?.[method.toLowerCase()];
  if (!found) throw new Error(`no ${method} ${path} in the document`);
  return found;
}

function parameter(op: Doc, name: string): Doc {
  return (op.parameters ?? []).find((p: Doc) => p.name === name);
}

function bodySchema(op: Doc): Doc {
  return op.requestBody?.content?.['application/json']?.schema;
}

/** Follows a local `$ref` (or an `anyOf: [$ref, null]` wrapper) to the component. */
function resolve(doc: Doc, schema: Doc): Doc {
  // A nullable reference is `anyOf: [{ $ref }, { type: 'null' }]`, as FastAPI publishes it (OpenAPI 3.1).
  const target = schema?.$ref ?? schema?.anyOf?.[0]?.$ref;
  return target ? doc.components.schemas[String(target).replace('#/components/schemas/', '')] : schema;
}

describe('OpenAPI document of the real schema', () => {
  let schema: GraphQLSchema;
  let doc: Doc;

  beforeAll(async () => {
    schema = await buildAppSchema();
    doc = buildOpenApiDocument(schema);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    // The validator itself must be able to say no.
    const dangling = { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } };
    const broken = { ...doc, paths: { '/x': { get: { responses: { '200': dangling } } } } };
    await expect(validateWithSwaggerParser(broken)).resolves.toMatchObject({ ok: false });
    await expect(validateWithSwaggerParser(doc)).resolves.toEqual({ ok: true, openapi: '3.1.0' });
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Vehicle Report Public API', version: '1.0.0' });
    expect(doc.info.description).toMatch(/empty query value/);
    // No OpenAPI 3.0 keyword is left: nullables are JSON Schema's.
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  it('has exactly the six operations of spec section 4, and the change feed (docs/events.md)', () => {
    expect(operationsOf(doc).sort()).toEqual(
      [
        'GET /public/reports/',
        'GET /public/reports/{report_id}',
        'POST /public/reports/create-lead',
        'GET /public/users/',
        'GET /public/users/{user_id}',
        'GET /public/dealerships/',
        'GET /public/events/',
      ].sort(),
    );
  });

  it('secures every operation with the x-api-key header scheme', () => {
    expect(doc.components.securitySchemes).toEqual({ APIKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' } });
    expect(doc.security).toEqual([{ APIKeyHeader: [] }]);
    for (const path of Object.values(doc.paths as Record<string, Record<string, Doc>>)) {
      for (const op of Object.values(path)) expect(op.security).toBeUndefined(); // nothing opts out
    }
  });

  it.each(REST_ROUTES.map((route) => [route.field, route] as const))(
    '%s: every argument is documented where the REST layer reads it, with its type, default and constraints',
    (_name, route) => {
      const op = operation(doc, route.method, templateOf(route));
      const field = rootFieldOf(schema, route);
      expect(field.args.length).toBeGreaterThan(0);
      for (const arg of field.args) {
        const location = locationOf(route, arg.name);
        const documented = location === 'body' ? bodySchema(op).properties[arg.name] : parameter(op, arg.name)?.schema;
        expect([arg.name, documented === undefined]).toEqual([arg.name, false]);
        if (location !== 'body') expect(parameter(op, arg.name).in).toBe(location);
        if (location === 'path') expect(parameter(op, arg.name).required).toBe(true);
        if (arg.defaultValue !== undefined) expect([arg.name, documented.default]).toEqual([arg.name, arg.defaultValue]);
        for (const rule of rulesOf(arg)) {
          if (rule.kind === 'range' && rule.ge !== undefined) expect(documented.minimum).toBe(rule.ge);
          if (rule.kind === 'range' && rule.le !== undefined) expect(documented.maximum).toBe(rule.le);
          const bounded = documented.anyOf?.[0] ?? documented; // a nullable body field: anyOf [T, null]
          if (rule.kind === 'length') expect(bounded.maxLength).toBe(rule.max);
          if (rule.kind === 'jsonSize') expect(bounded.maxLength).toBe(rule.maxLength);
          if (rule.kind === 'orderBy' || rule.kind === 'searchTerms') expect(typeof bounded.pattern).toBe('string');
        }
      }
    },
  );

  it('documents the api-behaviour.md constraints and the spec defaults by value', () => {
    const reports = operation(doc, 'GET', '/public/reports/');
    // A query parameter is absent or text, never null: its schema does not admit null.
    expect(parameter(reports, 'limit').schema).toEqual({
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 1000,
      default: 100,
      description: 'page size, 0 to 1000',
    });
    expect(parameter(reports, 'offset').schema).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(parameter(reports, 'valid').schema).toMatchObject({ type: 'boolean', default: true });
    expect(parameter(reports, 'token').schema).toEqual({ type: 'string', format: 'uuid' });
    expect(parameter(reports, 'created_at__gte').schema).toMatchObject({ type: 'string', format: 'date-time' });
    expect(parameter(reports, 'type').schema.enum).toEqual([
      'inspection',
      'counter_inspection',
      'after_sale',
      'marketing',
      'rental',
      'insurance',
      'remote',
      'extra_plate',
      'extra_vin',
      'extra_scoring',
    ]);
    // A JSON object sent as its JSON text, as FastAPI publishes a `Json` query parameter: generated
    // clients send the text (not deepObject brackets, not the exploded form).
    expect(parameter(reports, 'data__contains').content).toBeUndefined();
    expect(parameter(reports, 'data__contains').schema).toMatchObject({
      type: 'string',
      contentMediaType: 'application/json',
      contentSchema: { type: 'object', additionalProperties: true },
      maxLength: 4096,
    });
    const orderBy = new RegExp(parameter(reports, 'order_by').schema.pattern, 'u');
    for (const ok of ['created_at', '-created_at', 'brand,-updated_at,dealership_name']) expect([ok, orderBy.test(ok)]).toEqual([ok, true]);
    for (const bad of ['', ',', 'nope', ' created_at', 'created_at,', '-']) expect([bad, orderBy.test(bad)]).toEqual([bad, false]);
    const search = new RegExp(parameter(reports, 'search').schema.pattern, 'u');
    expect(parameter(reports, 'search').schema.maxLength).toBe(500);
    for (const ok of ['', 'renault', ' a  b ', 'x'.repeat(100), Array.from({ length: 10 }, () => 'ab').join(' ')]) {
      expect([ok, search.test(ok)]).toEqual([ok, true]);
    }
    for (const bad of ['x'.repeat(101), Array.from({ length: 11 }, () => 'ab').join(' ')])
      expect([bad, search.test(bad)]).toEqual([bad, false]);
    expect(parameter(reports, 'vin').description).toMatch(/case-insensitive/);
    for (const name of ['limit', 'offset', 'vin', 'valid']) expect(parameter(reports, name).required).toBe(false);

    const users = operation(doc, 'GET', '/public/users/');
    expect(parameter(users, 'limit').schema).toMatchObject({ minimum: 0, maximum: 1000, default: 100 });
    const dealerships = operation(doc, 'GET', '/public/dealerships/');
    expect(parameter(dealerships, 'offset').schema).toMatchObject({ minimum: 0, default: 0 });

    const lead = bodySchema(operation(doc, 'POST', '/public/reports/create-lead'));
    expect(lead.type).toBe('object');
    expect(lead.required).toEqual(['dealership']);
    // A body field may be null: JSON Schema 2020-12's anyOf, as FastAPI publishes `Optional[str]`.
    expect(lead.properties.custom_sms).toMatchObject({ anyOf: [{ type: 'string', maxLength: 480 }, { type: 'null' }] });
    expect(lead.properties.lang).toMatchObject({ enum: ['fr', 'en', 'es', 'de', 'it', 'nl', 'pt'], default: 'fr' });
    expect(lead.properties.sendEmail).toMatchObject({ type: 'boolean', default: false });
    expect(lead.properties.dealership).toMatchObject({ type: 'string', format: 'uuid' });
  });

  it('documents success and error responses per route', () => {
    for (const route of REST_ROUTES) {
      const responses = operation(doc, route.method, templateOf(route)).responses;
      // The HTTP layer's own answers (400 unreadable body, 408, 413, 414, 431, 503) on every route.
      const expected = [String(route.status), '400', '401', '408', '413', '414', '422', '429', '431', '503'];
      if (route.notFound) expected.push('404');
      if (route.method === 'POST') expected.push('403', '409');
      // conditional requests (issue 26): fetch-one answers 304 to a current If-None-Match
      const conditional = route.field === 'Query.report' || route.field === 'Query.user';
      if (conditional) expected.push('304');
      expect([route.field, Object.keys(responses).sort()]).toEqual([route.field, expected.sort()]);
      if (route.method === 'GET') {
        const headers = Object.keys(responses['200'].headers).sort();
        // The lists page by `cursor` with a Link header; the change feed by `after` (`next` in its body).
        const paged = route.path.endsWith('/') && route.field !== 'Query.events';
        expect([route.field, headers]).toEqual([
          route.field,
          ['Cache-Control', ...(conditional ? ['ETag'] : []), ...(paged ? ['Link'] : [])],
        ]);
        const parameters = operation(doc, route.method, templateOf(route)).parameters.map((p: { name: string }) => p.name);
        expect([route.field, parameters.includes('If-None-Match'), parameters.includes('cursor')]).toEqual([
          route.field,
          conditional,
          paged,
        ]);
      }
      for (const status of ['400', '401', '404', '403', '408', '409', '413', '414', '429', '431', '503']) {
        if (responses[status])
          expect(responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/HTTPError' });
      }
      expect(responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/HTTPValidationError' });
      if (route.notFound) expect(responses['404'].description).toBe(route.notFound);
    }
    expect(doc.components.schemas.HTTPError).toMatchObject({ properties: { detail: { type: 'string' } }, required: ['detail'] });
    const validationError = doc.components.schemas.ValidationError;
    expect(validationError.required).toEqual(['loc', 'msg', 'type']);
    expect(Object.keys(validationError.properties).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    expect(validationError.properties.loc.items.anyOf).toEqual([{ type: 'string' }, { type: 'integer' }]);
    expect(doc.components.schemas.HTTPValidationError.properties.detail.items).toEqual({ $ref: '#/components/schemas/ValidationError' });
  });

  it('derives response schemas from the REST selection (spec 2.1–2.5), GraphQL-only fields left out', () => {
    const ok = (method: string, path: string, status = '200') =>
      resolve(doc, operation(doc, method, path).responses[status].content['application/json'].schema);

    const reportPage = ok('GET', '/public/reports/');
    expect(Object.keys(reportPage.properties).sort()).toEqual(['items', 'limit', 'next_cursor', 'offset', 'total']);
    expect(reportPage.required).toEqual(['items']);
    const compact = resolve(doc, reportPage.properties.items.items);
    expect(Object.keys(compact.properties).sort()).toEqual(
      ['created_at', 'data', 'dealership_id', 'organization_id', 'profile', 'token', 'updated_at'].sort(),
    );
    expect(compact.required.sort()).toEqual(['created_at', 'data', 'organization_id', 'token', 'updated_at']);
    expect(compact.properties.token).toEqual({ type: 'string', format: 'uuid' });
    expect(compact.properties.created_at).toEqual({ type: 'string', format: 'date-time' });
    expect(Object.keys(compact.properties.profile.anyOf[0].properties)).toEqual(['id', 'name', 'email', 'phone']);
    expect(compact.properties.profile.anyOf[1]).toEqual({ type: 'null' });
    const compactData = resolve(doc, compact.properties.data);
    expect(compactData.required).toEqual(['vehicle']);

    const usersPage = ok('GET', '/public/users/');
    expect(usersPage.required.sort()).toEqual(['items', 'offset', 'total']); // spec 2.1, users variant
    const user = ok('GET', '/public/users/{user_id}');
    expect(Object.keys(user.properties).sort()).toEqual(
      [
        'address',
        'created_at',
        'created_by',
        'email',
        'entity_id',
        'id',
        'is_active',
        'last_activity',
        'name',
        'organization_id',
        'phone',
        'photo',
        'position',
        'role',
      ].sort(),
    );
    expect(user.properties.address).toEqual({}); // JSON: any value
    expect(user.properties.is_active).toEqual({ type: 'boolean' });

    const dealership = resolve(doc, ok('GET', '/public/dealerships/').properties.items.items);
    expect(Object.keys(dealership.properties)).not.toContain('reports');
    expect(Object.keys(dealership.properties)).not.toContain('users');
    expect(dealership.properties.position).toEqual({ type: 'integer', format: 'int32' });
    expect(dealership.properties.brands).toEqual({ type: 'array', items: { type: 'string' } });

    const report = ok('GET', '/public/reports/{report_id}');
    for (const name of [
      'token',
      'created_at',
      'updated_at',
      'organization_id',
      'dealership_id',
      'profile_id',
      'data',
      'state',
      'type',
      'valid',
      'real_costs',
      'contact_id',
      'counter_id',
    ]) {
      expect([name, name in report.properties]).toEqual([name, true]);
    }
    expect(Object.keys(report.properties)).not.toContain('entity_id');
    expect(Object.keys(report.properties)).not.toContain('organization');
    expect(report.properties.type.enum).toContain('extra_scoring');
    expect(Object.keys(resolve(doc, report.properties.state).properties)).toHaveLength(14);
    expect(resolve(doc, report.properties.real_costs).properties.salesPrice).toEqual({
      anyOf: [{ type: 'number', format: 'double' }, { type: 'null' }],
    });

    expect(ok('POST', '/public/reports/create-lead', '201')).toMatchObject({
      properties: { token: { type: 'string' }, link: { type: 'string' } },
      required: ['token', 'link'],
    });
  });
});

/**
 * A schema that exists only here, with a `new_filter` argument nobody wrote REST code for, and
 * resolvers that echo the variables they received.
 */
const THROWAWAY_SDL = /* GraphQL */ `
  scalar UUID
  scalar DateTimeISO
  scalar JSON

  type Page {
    items: [JSON!]!
    limit: Int
    offset: Int!
    total: Int!
    received: JSON
  }

  type Query {
    reports(limit: Int = 100, offset: Int! = 0, valid: Boolean = true, new_filter: Boolean, since: DateTimeISO): Page!
    report(report_id: UUID!): Page!
    users(limit: Int = 100, offset: Int! = 0): Page!
    user(user_id: UUID!): Page!
    dealerships(limit: Int = 100, offset: Int! = 0, near: Float): Page!
    events(after: String, limit: Int = 100, types: String): Page!
  }

  type Mutation {
    createLead(dealership: UUID!, lang: String = "fr", new_flag: Boolean! = false): Page!
  }
`;

function throwawaySchema(): GraphQLSchema {
  const schema = buildSchema(THROWAWAY_SDL);
  const echo: GraphQLFieldResolver<unknown, unknown> = (_source, args: Record<string, unknown>) => ({
    items: [],
    limit: args.limit ?? null,
    offset: args.offset ?? 0,
    total: 0,
    received: args,
  });
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) field.resolve = echo;
  }
  return schema;
}

describe('a new argument, with no REST code change', () => {
  const schema = throwawaySchema();
  const reportsRoute = REST_ROUTES.find((r) => r.field === 'Query.reports')!;

  it('is documented by buildOpenApiDocument', async () => {
    const doc: Doc = buildOpenApiDocument(schema);
    await expect(validateWithSwaggerParser(doc)).resolves.toEqual({ ok: true, openapi: '3.1.0' });
    const reports = operation(doc, 'GET', '/public/reports/');
    expect(parameter(reports, 'new_filter')).toEqual({
      name: 'new_filter',
      in: 'query',
      required: false,
      schema: { type: 'boolean' },
    });
    expect(parameter(reports, 'since').schema).toEqual({ type: 'string', format: 'date-time' });
    // Bounds come from the argument's declared rules (`@Rules` on the args class), which SDL cannot carry:
    // an SDL-only argument gets its GraphQL type's range, never an invented one.
    expect(parameter(reports, 'limit').schema).toMatchObject({ type: 'integer', default: 100, maximum: 2147483647 });
    expect(parameter(operation(doc, 'GET', '/public/dealerships/'), 'near').schema).toMatchObject({ type: 'number' });
    const lead = bodySchema(operation(doc, 'POST', '/public/reports/create-lead'));
    expect(lead.properties.new_flag).toEqual({ type: 'boolean', default: false });
    expect(lead.required).toEqual(['dealership']);
    // The response component comes from the throwaway output type.
    expect(Object.keys(resolve(doc, reports.responses['200'].content['application/json'].schema).properties)).toContain('received');
    expect(getNamedType(rootFieldOf(schema, reportsRoute).type).name).toBe('Page');
  });

  it('is validated by the REST validation layer (Pydantic bool_parsing)', () => {
    const validate = (query: Record<string, string>) =>
      validateArguments({
        args: rootFieldOf(schema, reportsRoute).args,
        locationOf: (name) => locationOf(reportsRoute, name),
        query,
        path: {},
        body: undefined,
      });
    expect(validate({ new_filter: 'maybe' })).toEqual({
      ok: false,
      errors: [
        {
          type: 'bool_parsing',
          loc: ['query', 'new_filter'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: 'maybe',
        },
      ],
    });
    expect(validate({ new_filter: 'YES' })).toEqual({ ok: true, variables: { limit: 100, offset: 0, valid: true, new_filter: true } });
  });

  describe.each(['pglite', 'postgres'] as const)('through restRouter over HTTP (%s)', (kind) => {
    let server: TestServer;
    let throwaway: Server;
    let baseUrl: string;

    beforeAll(async () => {
      // The real database only for the API keys; the routes run the throwaway schema.
      server = await startTestServer(kind, { reports: 10 });
      const app = express();
      app.use(
        restRouter(schema, {
          db: server.db,
          apiKeys: new ApiKeyAuthenticator(server.db.prisma, server.db),
          appBaseUrl: server.config.appBaseUrl,
          rateLimits: createRateLimits(server.config.rateLimits),
          organizationSlots: createConcurrencyLimiter(server.config.organizationConcurrency),
        }),
      );
      throwaway = createServer(app);
      await new Promise<void>((done) => throwaway.listen(0, '127.0.0.1', done));
      baseUrl = `http://127.0.0.1:${(throwaway.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      throwaway?.closeAllConnections();
      await new Promise<void>((done) => (throwaway ? throwaway.close(() => done()) : done()));
      await server?.close();
    });

    const get = async (path: string) => {
      const res = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': server.keys[0]! } });
      return { status: res.status, body: (await res.json()) as Doc };
    };

    it('rejects new_filter=maybe with bool_parsing, alongside other failures', async () => {
      const { status, body } = await get('/public/reports/?new_filter=maybe&since=yesterday&limit=x');
      expect(status).toBe(422);
      expect(body.detail.map((d: Doc) => [d.type, d.loc])).toEqual([
        ['int_parsing', ['query', 'limit']],
        ['bool_parsing', ['query', 'new_filter']],
        ['datetime_from_date_parsing', ['query', 'since']],
      ]);
    });

    it('hands the coerced new argument to the resolver', async () => {
      const { status, body } = await get('/public/reports/?new_filter=on&since=2026-01-02');
      expect(status).toBe(200);
      expect(body.received).toEqual({ limit: 100, offset: 0, valid: true, new_filter: true, since: '2026-01-02T00:00:00.000Z' });
    });

    it('takes a new body field of create-lead from the JSON body', async () => {
      const post = (body: unknown) =>
        fetch(`${baseUrl}/public/reports/create-lead`, {
          method: 'POST',
          headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const dealership = server.dataset.dealerships[0]!.id;
      const ok = await post({ dealership, new_flag: true });
      expect(ok.status).toBe(201);
      expect(((await ok.json()) as Doc).received).toEqual({ dealership, lang: 'fr', new_flag: true });
      const bad = await post({ dealership, new_flag: 'maybe' });
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as Doc).detail).toEqual([
        {
          type: 'bool_parsing',
          loc: ['body', 'new_flag'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: 'maybe',
        },
      ]);
      expect(
        isNonNullType(
          rootFieldOf(
            schema,
            REST_ROUTES.find((r) => r.method === 'POST')!,
          ).args[0]!.type,
        ),
      ).toBe(true);
    });
  });
});
