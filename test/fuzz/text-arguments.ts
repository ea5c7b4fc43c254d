/**
 * Hostile text in one argument of an otherwise valid request, for every text-like argument
 * (String, JSON, UUID, DateTimeISO) of every REST route and every GraphQL root field, read from
 * the schema. The broad fuzzer reaches these rarely (one bad value among several usually stops at
 * validation); here each request carries exactly one, so what the services and PostgreSQL do with
 * it is always exercised.
 */
import fc from 'fast-check';
import { getNamedType, isNonNullType, type GraphQLArgument, type GraphQLField } from 'graphql';
import { REST_BASE_PATH, REST_ROUTES, locationOf, type RestRoute } from '../../src/api/rest/routes';
import { idsForArgument, type FuzzContext } from './fuzz-context';
import { hostileString, UNSTORABLE_STRINGS } from './hostile-values';
import { percentEncode } from './raw-http';
import type { FuzzRequest } from './rest-requests';

const TEXT_TYPES = new Set(['String', 'JSON', 'UUID', 'DateTimeISO']);

interface TextArgument {
  /** `REST GET /public/reports/` or `GraphQL Query.reports` */
  target: string;
  field: GraphQLField<unknown, unknown>;
  arg: GraphQLArgument;
  route?: RestRoute;
  operation?: 'query' | 'mutation';
}

/** Every text-like argument of every route and root field. */
export function textArguments(context: FuzzContext): TextArgument[] {
  const out: TextArgument[] = [];
  const roots = [
    { operation: 'query' as const, type: context.schema.getQueryType() },
    { operation: 'mutation' as const, type: context.schema.getMutationType() },
  ];
  for (const { operation, type } of roots) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      for (const arg of field.args.filter((a) => TEXT_TYPES.has(getNamedType(a.type).name))) {
        out.push({ target: `GraphQL ${type!.name}.${field.name}(${arg.name})`, field, arg, operation });
        const route = REST_ROUTES.find((r) => r.field === `${type!.name}.${field.name}`);
        if (route) out.push({ target: `REST ${route.method} ${REST_BASE_PATH}${route.path} (${arg.name})`, field, arg, route });
      }
    }
  }
  return out;
}

/** The text, placed where the argument's type wants it: as is, or inside a JSON document. */
function valueFor(arg: GraphQLArgument, text: string): fc.Arbitrary<unknown> {
  if (getNamedType(arg.type).name !== 'JSON') return fc.constant(text);
  return fc.constantFrom<unknown>({ vehicle: { vin: text } }, [text], { [text]: 1 }, text, { metadata: { individual: { name: text } } });
}

/** A valid value for every other required argument. */
function requiredArguments(context: FuzzContext, field: GraphQLField<unknown, unknown>, except: string): Record<string, unknown> {
  return Object.fromEntries(
    field.args
      .filter((a) => a.name !== except && isNonNullType(a.type) && a.defaultValue === undefined)
      .map((a) => [a.name, idsForArgument(context, a.name)[0]]),
  );
}

function restRequestFor(context: FuzzContext, target: TextArgument, value: unknown): FuzzRequest {
  const route = target.route!;
  const name = target.arg.name;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const headers: Record<string, string> = { 'x-api-key': context.keys.own };
  const where = locationOf(route, name);
  // Cut below node's 16 kB request-head limit (its 431 has no body; see raw-http.ts).
  const encoded = percentEncode(text).slice(0, 6_000);
  let path = `${REST_BASE_PATH}${route.path}`.replace(/:(\w+)/g, (_m, param: string) =>
    param === name ? encoded : idsForArgument(context, param)[0]!,
  );
  let body: string | undefined;
  if (where === 'query') path += `?${percentEncode(name)}=${encoded}`;
  if (where === 'body') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify({ ...requiredArguments(context, target.field, name), [name]: value });
  }
  return { interface: 'rest', target: target.target, method: route.method, path, headers, body };
}

function graphqlRequestFor(context: FuzzContext, target: TextArgument, value: unknown): FuzzRequest {
  const required = requiredArguments(context, target.field, target.arg.name);
  const declarations = [
    `$value: ${target.arg.type.toString()}`,
    ...Object.keys(required).map((n) => `$${n}: ${target.field.args.find((a) => a.name === n)!.type.toString()}`),
  ];
  const args = [`${target.arg.name}: $value`, ...Object.keys(required).map((n) => `${n}: $${n}`)];
  const query = `${target.operation} (${declarations.join(', ')}) { ${target.field.name}(${args.join(', ')}) { __typename } }`;
  return {
    interface: 'graphql',
    target: target.target,
    method: 'POST',
    path: '/graphql',
    headers: { 'x-api-key': context.keys.own, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: { ...required, value } }),
  };
}

export function textArgumentRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const text = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...UNSTORABLE_STRINGS) }, { weight: 1, arbitrary: hostileString });
  return fc
    .tuple(fc.constantFrom(...textArguments(context)), text)
    .chain(([target, raw]) =>
      valueFor(target.arg, raw).map((value) =>
        target.route ? restRequestFor(context, target, value) : graphqlRequestFor(context, target, value),
      ),
    );
}
