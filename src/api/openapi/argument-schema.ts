/**
 * OpenAPI 3.1 (JSON Schema 2020-12) schema of one argument, from the same GraphQL type and
 * constraints the validator uses, so the document and the behaviour cannot drift apart.
 */

import {
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLScalarType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import { rulesOf, type InputRule } from '../../shared/schema/input-rules';
import { GRAPHQL_INT_RANGE, restSpellingOfEnumValue, SCALAR } from '../contract/validation/coerce';

export type OpenApiSchema = Record<string, unknown>;

/** The bounds an argument's rules set, as OpenAPI states them (`pattern`: ECMA-262, unanchored, the whole text must match). */
interface ArgumentBounds {
  ge?: number;
  le?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
}

function boundsOf(rules: readonly InputRule[]): ArgumentBounds {
  const bounds: ArgumentBounds = {};
  for (const rule of rules) {
    if (rule.kind === 'range') Object.assign(bounds, { ge: rule.ge, le: rule.le });
    if (rule.kind === 'length') bounds.maxLength = rule.max;
    if (rule.kind === 'email') bounds.format = 'email';
    if (rule.kind === 'pattern') bounds.pattern = rule.pattern;
    if (rule.kind === 'orderBy') bounds.pattern = orderByPattern(rule.fields);
    if (rule.kind === 'searchTerms') bounds.pattern = searchTermsPattern(rule.maxTerms, rule.maxTermLength);
  }
  return bounds;
}

/** `order_by` as the validator reads it: one or more known fields, each optionally `-`, comma-separated. */
export function orderByPattern(fields: readonly string[]): string {
  const term = `-?(?:${fields.join('|')})`;
  return `^${term}(?:,${term})*$`;
}

/**
 * The search rule as a pattern: at most `maxTerms` whitespace-separated terms of at most
 * `maxTermLength` characters (the service splits on JavaScript's `\s`, Python's `str.split()` set).
 */
export function searchTermsPattern(maxTerms: number, maxTermLength: number): string {
  const term = `\\S{1,${maxTermLength}}`;
  return `^\\s*(?:${term}(?:\\s+${term}){0,${maxTerms - 1}})?\\s*$`;
}

/**
 * `where`: `body` for a field of a JSON body, where `null` is a value a nullable argument accepts;
 * `parameter` for a query, path or header parameter, which is absent or text (`?limit=null` is not
 * null but a 422), so its schema never admits null.
 */
export function openApiParameterSchema(arg: GraphQLArgument, where: 'body' | 'parameter' = 'body'): OpenApiSchema {
  const schema = schemaOfType(arg.type, boundsOf(rulesOf(arg)), where === 'body');
  if (arg.defaultValue !== undefined && arg.defaultValue !== null) {
    schema.default = defaultForDocument(arg.defaultValue, arg.type);
  }
  if (arg.description) schema.description = arg.description;
  if (arg.deprecationReason) schema.deprecated = true;
  return schema;
}

/** JSON Schema 2020-12's null, as FastAPI publishes an optional value: `anyOf: [T, {type: 'null'}]`. */
export const NULL_SCHEMA: OpenApiSchema = { type: 'null' };

function schemaOfType(type: GraphQLInputType, bounds: ArgumentBounds, allowNull = true): OpenApiSchema {
  const schema = schemaOfNullableType(getNullableType(type), bounds);
  // A JSON argument is any value, null included: nothing to add to an untyped schema.
  if (isNonNullType(type) || !allowNull || !Object.keys(schema).some((key) => key === 'type' || key === 'enum')) return schema;
  return { anyOf: [schema, NULL_SCHEMA] };
}

function schemaOfNullableType(type: GraphQLInputType, bounds: ArgumentBounds): OpenApiSchema {
  if (isListType(type)) return { type: 'array', items: schemaOfType(type.ofType, bounds) };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map(restSpellingOfEnumValue) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name);
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, openApiParameterSchema(f as unknown as GraphQLArgument)])),
      ...(required.length > 0 ? { required } : {}),
    };
  }
  return scalarArgumentSchema(type, bounds);
}

/** The OpenAPI schema of a GraphQL scalar, whichever way it travels (argument or response field). */
export function scalarTypeSchema(type: GraphQLScalarType): OpenApiSchema {
  switch (type.name) {
    case SCALAR.Int:
      return { type: 'integer', format: 'int32' };
    case SCALAR.Float:
      return { type: 'number', format: 'double' };
    case SCALAR.Boolean:
      return { type: 'boolean' };
    case SCALAR.String:
      return { type: 'string' };
    case SCALAR.UUID:
      return { type: 'string', format: 'uuid' };
    case SCALAR.DateTimeISO:
      return { type: 'string', format: 'date-time' };
    case SCALAR.JSON:
      return {};
    default:
      // An unknown custom scalar travels as a string in every graphql-scalars case we use.
      return { type: 'string', ...(type.description ? { description: type.description } : {}) };
  }
}

/** An argument's scalar: the type plus its bounds, and how JSON travels in a query string. */
function scalarArgumentSchema(type: GraphQLScalarType, bounds: ArgumentBounds): OpenApiSchema {
  const schema = scalarTypeSchema(type);
  switch (type.name) {
    case SCALAR.Int:
      return { ...schema, ...defined({ minimum: bounds.ge ?? GRAPHQL_INT_RANGE.ge, maximum: bounds.le ?? GRAPHQL_INT_RANGE.le }) };
    case SCALAR.Float:
      return { ...schema, ...defined({ minimum: bounds.ge, maximum: bounds.le }) };
    case SCALAR.String:
      return { ...schema, ...defined({ format: bounds.format, maxLength: bounds.maxLength, pattern: bounds.pattern }) };
    case SCALAR.JSON:
      return { ...schema, description: 'Any JSON value. In a query string: the URL-encoded JSON text.' };
    default:
      return schema;
  }
}

const defined = (schema: OpenApiSchema): OpenApiSchema =>
  Object.fromEntries(Object.entries(schema).filter(([, value]) => value !== undefined));

/** Defaults are documented in their REST spelling (enum values, not GraphQL names). */
function defaultForDocument(value: unknown, type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable) && Array.isArray(value)) return value.map((item) => defaultForDocument(item, nullable.ofType));
  if (isEnumType(nullable)) {
    const match = nullable.getValues().find((v) => v.value === value);
    return match ? restSpellingOfEnumValue(match) : value;
  }
  if (value instanceof Date) return value.toISOString();
  return value;
}
