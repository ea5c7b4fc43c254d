/**
 * Generated requests for the REST routes (src/api/rest/routes.ts) and for paths that are not the
 * API. Parameter names come from each route's GraphQL field in the introspected schema, so a new
 * route or argument is fuzzed without touching this file.
 */
import fc from 'fast-check';
import type { GraphQLArgument } from 'graphql';
import { REST_BASE_PATH, REST_ROUTES, type RestRoute } from '../../src/api/rest/routes';
import { idsForArgument, type FuzzContext } from './fuzz-context';
import { hostileJsonText, hostileNumberText, hostileString, nestedJsonText, oneIn } from './hostile-values';
import { percentEncode, type RawRequest } from './raw-http';

export interface FuzzRequest extends RawRequest {
  interface: 'rest' | 'graphql' | 'page';
  /** what the request aimed at, for the coverage count: `GET /public/reports/`, `graphql`, ... */
  target: string;
  /** the whole request as bytes, written on a socket instead (socket-requests.ts) */
  raw?: Buffer;
}

/**
 * Paths stay under the app's 8 KiB query-string limit (its 414 is test/server/limits.test.ts's
 * business) and far under node's 16 kB request head, which node refuses itself (431, no body).
 */
const MAX_PATH_LENGTH = 8_000;

/** Query strings broken on purpose: bad escapes, stray separators, lone `%`. Sent as is. */
const BROKEN_QUERY_PIECES = [
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4',
  '%C3%28',
  '%FF%FE',
  '%00',
  '%%',
  '&&',
  '=',
  '==',
  '&=&',
  '+',
  ';',
  '%u0041',
  '%25',
  '[',
  ']',
  '%5B%5D',
];
const BROKEN_PATH_SEGMENTS = [
  '%ZZ',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%2F',
  '..',
  '.',
  '%2e%2e',
  'a%20b',
  '%7B%7D',
  ';x=1',
  '%F0%9F%98%80',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

function argumentsOf(context: FuzzContext, route: RestRoute): readonly GraphQLArgument[] {
  const [typeName, fieldName] = route.field.split('.');
  const type = typeName === 'Mutation' ? context.schema.getMutationType() : context.schema.getQueryType();
  const field = type?.getFields()[fieldName!];
  if (!field) throw new Error(`route ${route.field} is not in the introspected schema`);
  return field.args;
}

const idOf = (context: FuzzContext, argumentName: string) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...idsForArgument(context, argumentName)) }, { weight: 1, arbitrary: fc.uuid() });

/** A value for a parameter of this GraphQL type, as text: plausible, wrong or hostile. */
function parameterText(context: FuzzContext, name: string, typeName: string): fc.Arbitrary<string> {
  const plausible: Record<string, fc.Arbitrary<string>> = {
    UUID: idOf(context, name),
    Int: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('0', '1', '7', '100', '1000', '25') },
      { weight: 1, arbitrary: hostileNumberText },
    ),
    Boolean: fc.constantFrom('true', 'false', '1', '0', 'yes', 'off', 'T', 'maybe', ''),
    DateTimeISO: fc.oneof(
      fc.date({ min: new Date('1900-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('2026-01-01', '2026-10-01T10:00:00+02:00', '2026-10-01 10:00', 'yesterday'),
    ),
    JSON: hostileJsonText,
    ReportType: fc.constantFrom('remote', 'inspection', 'REMOTE', 'nope', ''),
    String: fc.constantFrom(...context.texts, 'created_at', '-updated_at,vin', 'name,-position', 'brand,brand'),
  };
  return fc.oneof({ weight: 5, arbitrary: plausible[typeName] ?? hostileString }, { weight: 2, arbitrary: hostileString });
}

function queryString(context: FuzzContext, route: RestRoute): fc.Arbitrary<string> {
  const args = argumentsOf(context, route);
  const known = args.map((arg) => ({ name: arg.name, type: arg.type.toString().replace(/[[\]!]/g, '') }));
  const pair = fc.oneof(
    {
      weight: 6,
      arbitrary: (known.length > 0 ? fc.constantFrom(...known) : fc.constant({ name: 'limit', type: 'Int' })).chain(({ name, type }) =>
        parameterText(context, name, type).map((value) => `${percentEncode(name)}=${percentEncode(value)}`),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'unknown',
            '__proto__',
            'constructor',
            'limit[]',
            'limit[a]',
            'a[b][c]',
            'toString',
            '',
            'LIMIT',
            'Limit ',
            // the spellings generators produce for a JSON filter (issue 24): read as the filter or a 422
            'state__contains[folder_sold][status]',
            'data__contains[vehicle][vin]',
            'state__not_contains[__proto__][a]',
            'state__contains[]',
            'state__contains[a][]',
            'state__contains.folder_sold',
          ),
          hostileString,
        )
        .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_QUERY_PIECES) },
  );
  return fc.oneof(fc.array(pair, { maxLength: 3 }), fc.array(pair, { maxLength: 10 })).map((pairs) => {
    let query = '';
    for (const piece of pairs) {
      const next = query === '' ? piece : `${query}&${piece}`;
      if (next.length > MAX_PATH_LENGTH) break;
      query = next;
    }
    return query === '' ? '' : `?${query}`;
  });
}

function pathFor(context: FuzzContext, route: RestRoute): fc.Arbitrary<string> {
  const parameter = /:(\w+)/.exec(route.path)?.[1] ?? '';
  const segment = fc.oneof(
    { weight: 4, arbitrary: idOf(context, parameter) },
    { weight: 2, arbitrary: hostileString.map((s) => percentEncode(s.slice(0, 300))) },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_PATH_SEGMENTS) },
  );
  const parts = `${REST_BASE_PATH}${route.path}`.split('/');
  return fc
    .tuple(fc.array(segment, { minLength: parts.length, maxLength: parts.length }), fc.integer({ min: 0, max: 9 }))
    .map(([values, slash]) => {
      const path = parts.map((part, i) => (part.startsWith(':') ? values[i]! : part)).join('/');
      // now and then the other slash form: a 307 to the route
      if (slash !== 0) return path;
      return path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
    });
}

export function apiKeyHeader(context: FuzzContext): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(context.keys.own) },
    { weight: 2, arbitrary: fc.constant(context.keys.other) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        context.keys.revoked,
        `${context.keys.own} `,
        ` ${context.keys.own}`,
        context.keys.own.toUpperCase(),
        context.keys.own.slice(0, -1),
        'vr_live_',
        'vr_live_' + 'A'.repeat(32),
        "' OR 1=1--",
        'null',
        'Bearer ' + context.keys.own,
        'ÿÿÿ',
        'k'.repeat(6000),
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([context.keys.own, context.keys.other]) },
    { weight: 1, arbitrary: fc.constant<string[]>([context.keys.own, context.keys.own]) },
  );
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=nope',
  'application/json;;;',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/graphql',
  'application/xml',
  '*/*',
  '',
];

function headers(context: FuzzContext, bodyExpected: boolean): fc.Arbitrary<Record<string, string | string[]>> {
  return fc
    .record({
      key: apiKeyHeader(context),
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      idempotencyKey: oneIn(
        4,
        fc.oneof(
          fc.constantFrom('fuzz-1', 'fuzz-2', '', ' ', 'é'),
          // long and incompressible: more than a btree index entry holds
          fc.string({ maxLength: 4000, unit: 'binary' }).map((s) =>
            Buffer.from(s, 'utf8')
              .toString('latin1')
              .replace(/[^\x20-\x7e\x80-\xff]/g, '_')
              .slice(0, 4000),
          ),
        ),
      ),
      accept: oneIn(4, fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'text/event-stream')),
      duplicateContentType: fc.boolean(),
    })
    .map(({ key, contentType, idempotencyKey, accept, duplicateContentType }) => {
      const out: Record<string, string | string[]> = {};
      if (key !== undefined) out['x-api-key'] = key;
      if (contentType !== undefined && (bodyExpected || duplicateContentType)) {
        out['content-type'] = duplicateContentType ? [contentType, 'text/plain'] : contentType;
      }
      if (idempotencyKey !== null) out['idempotency-key'] = idempotencyKey;
      if (accept !== null) out.accept = accept;
      return out;
    });
}

/** A create-lead body: mostly an object of the mutation's arguments with right, wrong or hostile values. */
function leadBody(context: FuzzContext): fc.Arbitrary<string | Buffer | undefined> {
  const ownDealership = context.ids.dealership[0]!;
  const field = fc
    .oneof(
      fc.constant([
        'dealership',
        fc.oneof(fc.constantFrom(...context.ids.dealership.slice(0, 3), ...context.ids.dealership.slice(-2)), fc.uuid(), hostileString),
      ] as const),
      fc.constant([
        'email',
        fc.oneof(
          fc.constantFrom('client@example.com', 'a@b', 'x@example.com\u0000', '"quoted"@example.com', 'é@exämple.com'),
          hostileString,
        ),
      ] as const),
      fc.constant([
        'phone',
        fc.oneof(fc.constantFrom('+33612345678', '0612345678', '+1 202 555 0143', '12', '+999999999999999999'), hostileString),
      ] as const),
      fc.constant(['name', hostileString] as const),
      fc.constant(['folder_name', hostileString] as const),
      fc.constant(['lang', fc.constantFrom('fr', 'en', 'de', 'xx', 'FR', '', null)] as const),
      fc.constant([
        'custom_sms',
        fc.oneof(fc.constantFrom('Hi {name}: {link}', '{unknown}', '{', '}{', '{__proto__}', '{link}'.repeat(100)), hostileString),
      ] as const),
      fc.constant(['sendEmail', fc.constantFrom(true, false, 'true', 'maybe', 1, 0, null, [], {})] as const),
      fc.constant(['sendPhone', fc.constantFrom(true, false, 'yes', 2, null)] as const),
    )
    .chain(([name, value]) => (value as fc.Arbitrary<unknown>).map((v) => [name, v] as const));

  const wrongType = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
    fc.object({ maxDepth: 2 }),
  );
  const object = fc
    .tuple(
      fc.boolean(), // include a valid dealership
      fc.uniqueArray(field, { maxLength: 6, selector: ([name]) => name }),
      fc.array(fc.tuple(fc.constantFrom('email', 'name', 'phone', 'unknown', 'Dealership', ''), wrongType), { maxLength: 2 }),
    )
    .map(([withDealership, fields, wrong]) => {
      const body: Record<string, unknown> = withDealership ? { dealership: ownDealership } : {};
      for (const [name, value] of fields) body[name] = value;
      for (const [name, value] of wrong) body[name] = value;
      return JSON.stringify(body);
    });

  const pollution = fc.constantFrom(
    `{"__proto__":{"isAdmin":true},"dealership":"${ownDealership}"}`,
    `{"constructor":{"prototype":{"isAdmin":true}},"dealership":"${ownDealership}"}`,
    `{"dealership":"${ownDealership}","__proto__":{"sendEmail":true,"email":"x@example.com"}}`,
    `{"dealership":"${ownDealership}","name":{"__proto__":{"toString":1}}}`,
    `{"dealership":"${ownDealership}","dealership":"${context.ids.dealership.at(-1)}"}`,
  );
  return fc.oneof(
    { weight: 8, arbitrary: object },
    { weight: 2, arbitrary: pollution },
    { weight: 2, arbitrary: hostileJsonText },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 60_000 }).map((depth) => '['.repeat(depth)) },
    { weight: 1, arbitrary: fc.integer({ min: 500, max: 40_000 }).map((depth) => nestedJsonText(depth, 'array')) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 50_000, max: 150_000 }).map((n) => JSON.stringify({ dealership: ownDealership, name: 'n'.repeat(n) })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(undefined, '', ' ', 'null', '[]', '"text"', '42', '\ufeff{}', Buffer.from([0xff, 0xfe, 0x7b, 0x7d])),
    },
  );
}

export function restRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...REST_ROUTES).chain((route) =>
    fc
      .record({
        method: fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
        path: pathFor(context, route),
        query: queryString(context, route),
        body: leadBody(context),
      })
      .chain(({ method, path, query, body }) => {
        const withBody = method !== 'GET' && method !== 'HEAD';
        return headers(context, withBody).map((h): FuzzRequest => ({
          interface: 'rest',
          target: `${route.method} ${REST_BASE_PATH}${route.path}`,
          method,
          path: `${path}${query}`.slice(0, MAX_PATH_LENGTH),
          headers: h,
          body: withBody ? body : undefined,
        }));
      }),
  );
}

/** Paths outside the API: health, documents, pages, and what is not there. */
export function otherPathRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.constantFrom(
      '/',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/docs/',
      '/docs/assets/swagger-ui.css',
      '/public',
      '/public/',
      '/publicx',
      '/public/../public/reports/',
      '/public//reports/',
      '/PUBLIC/reports/',
      '/public/webhook',
      '/graphqlx',
      '/favicon.ico',
      '/.env',
      '/%ZZ',
      '/%00',
      '/public/%ZZ/',
    ),
    fc
      .array(
        fc.oneof(
          fc.constantFrom(...BROKEN_PATH_SEGMENTS),
          hostileString.map((s) => percentEncode(s.slice(0, 100))),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((segments) => `/${segments.join('/')}`),
  );
  return fc
    .record({
      // No OPTIONS here: outside /public express answers it itself in text/plain (see the report of issue 7).
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant('GET') },
        { weight: 2, arbitrary: fc.constantFrom(...METHODS.filter((m) => m !== 'OPTIONS')) },
      ),
      path,
      query: oneIn(3, fc.constantFrom('?a=1', '?%ZZ', '?x=%00&x=1', '?__proto__[x]=1')),
      key: oneIn(2, fc.constant(context.keys.own)),
    })
    .map(({ method, path, query, key }): FuzzRequest => ({
      interface: 'page',
      target: 'other paths',
      method,
      path: `${path}${query ?? ''}`,
      headers: key ? { 'x-api-key': key } : ({} as Record<string, string>),
      body: method === 'POST' ? '{}' : undefined,
    }));
}
