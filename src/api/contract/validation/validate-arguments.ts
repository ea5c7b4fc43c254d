/**
 * One validation layer for every REST route, driven by the GraphQL field's arguments. It does what
 * FastAPI does before calling an endpoint (fastapi/dependencies/utils.py `solve_dependencies`): path
 * parameters, then query, then header, then the body; every failure collected, none
 * short-circuiting another. The result is either the GraphQL variables (already coerced, to hand to
 * `execute`) or the items of FastAPI's 422 `detail`.
 */

import {
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import { rulesOf as declaredRules, type InputRule } from '../../../shared/schema/input-rules';
import { checkCrossRules, checkFieldRules } from '../argument-rules';
import * as errors from '../pydantic-errors';
import { atLoc, type Location, type LocSegment, type PydanticErrorItem } from '../pydantic-errors';
import { checkGraphQLIntRange, coerceLeaf, SCALAR, type Source } from './coerce';
import { readJsonMembers } from './json-members';

export interface ValidationInput {
  /** the GraphQL field's arguments (graphql-js `field.args`) */
  args: readonly GraphQLArgument[];
  /** where each argument comes from for this route */
  locationOf(argName: string): Location;
  /** raw query string values, as express gives them (a repeated key gives an array) */
  query: Record<string, string | string[] | undefined>;
  path: Record<string, string>;
  /** parsed JSON body (undefined when there is none); see `parseJsonBody` for the text */
  body: unknown;
  /** request headers as node gives them (lower-case names); needed only for header arguments */
  headers?: Record<string, string | string[] | undefined>;
  /** the rules of an argument; by default those declared on it (`@Rules`, in its extensions) */
  rulesOf?: (arg: GraphQLArgument) => readonly InputRule[];
}

export type ValidationResult = { ok: true; variables: Record<string, unknown> } | { ok: false; errors: PydanticErrorItem[] };

/** FastAPI's order of parameter sources. */
const LOCATION_ORDER: readonly Location[] = ['path', 'query', 'header', 'body'];

export function validateArguments(input: ValidationInput): ValidationResult {
  const variables: Record<string, unknown> = {};
  const found: PydanticErrorItem[] = [];
  const byLocation = new Map<Location, GraphQLArgument[]>(LOCATION_ORDER.map((location) => [location, []]));
  for (const arg of input.args) byLocation.get(input.locationOf(arg.name))!.push(arg);

  for (const location of LOCATION_ORDER) {
    const args = byLocation.get(location)!;
    if (args.length === 0) continue;
    if (location === 'body') validateBody(args, input, variables, found);
    else validateParameters(location, args, input, variables, found);
  }
  // Rules between arguments, like a Pydantic model validator (mode 'after'): only once every
  // argument has passed its own checks; a field error hides them.
  if (found.length > 0) return { ok: false, errors: found };
  const passed = new Set(input.args.map((arg) => arg.name).filter((name) => name in variables));
  const modelInput = isPlainObject(input.body) ? input.body : undefined;
  for (const item of checkCrossRules(input.args, variables, passed, modelInput)) {
    found.push({ ...item, loc: [input.locationOf(String(item.loc[0])), ...item.loc] });
  }
  return found.length > 0 ? { ok: false, errors: found } : { ok: true, variables };
}

function validateParameters(
  location: Exclude<Location, 'body'>,
  args: GraphQLArgument[],
  input: ValidationInput,
  variables: Record<string, unknown>,
  found: PydanticErrorItem[],
): void {
  const source = location === 'query' ? input.query : location === 'path' ? input.path : (input.headers ?? {});
  for (const arg of args) {
    // FastAPI's header alias: underscores become hyphens (`convert_underscores=True`); HTTP names are case-insensitive.
    const key = location === 'header' ? arg.name.replaceAll('_', '-').toLowerCase() : arg.name;
    let raw: unknown = Object.prototype.hasOwnProperty.call(source, key) ? source[key] : undefined;
    const loc: LocSegment[] = [location, key];
    const nullable = getNullableType(arg.type);
    if (location === 'query' && isScalarType(nullable) && nullable.name === SCALAR.JSON) {
      // A JSON parameter's `[member]` spelling is read as its JSON text or refused, never ignored.
      const members = readJsonMembers(key, input.query);
      if (members.kind === 'refused') {
        found.push(atLoc(loc, errors.valueError(members.input, members.message)));
        continue;
      }
      if (members.kind === 'text') raw = members.text;
    }
    if (raw === undefined || (isListType(nullable) && Array.isArray(raw) && raw.length === 0)) {
      if (arg.defaultValue !== undefined) variables[arg.name] = variableFromDefault(arg.defaultValue, arg.type);
      else if (isNonNullType(arg.type)) found.push(atLoc(loc, errors.missing(null)));
      continue;
    }
    const result = coerceValue(arg.type, raw, 'text', loc, (input.rulesOf ?? declaredRules)(arg));
    if (result.ok) variables[arg.name] = result.value;
    else found.push(...result.errors);
  }
}

/**
 * The body arguments form one Pydantic model, validated by FastAPI with
 * `validate_python(body, from_attributes=True)` under loc `["body"]`.
 */
function validateBody(
  args: GraphQLArgument[],
  input: ValidationInput,
  variables: Record<string, unknown>,
  found: PydanticErrorItem[],
): void {
  const body = input.body;
  // No body (or a JSON `null`, which Starlette cannot tell apart): FastAPI's missing-field
  // error for the required body parameter, `input: None`.
  if (body === undefined || body === null) found.push(atLoc(['body'], errors.missing(null)));
  else if (!isPlainObject(body)) found.push(atLoc(['body'], errors.modelAttributesType(body)));
  else coerceMembers(args, body, ['body'], input.rulesOf ?? declaredRules, variables, found);
}

/** The members of a JSON object (the body model, an input object), each against its field. */
function coerceMembers<F extends GraphQLArgument | GraphQLInputField>(
  fields: readonly F[],
  raw: Record<string, unknown>,
  loc: LocSegment[],
  rulesOf: (field: F) => readonly InputRule[],
  value: Record<string, unknown>,
  found: PydanticErrorItem[],
): void {
  for (const field of fields) {
    const fieldLoc = [...loc, field.name];
    if (!Object.prototype.hasOwnProperty.call(raw, field.name)) {
      if (field.defaultValue !== undefined) value[field.name] = variableFromDefault(field.defaultValue, field.type);
      // Pydantic reports the whole model input for a missing field.
      else if (isNonNullType(field.type)) found.push(atLoc(fieldLoc, errors.missing(raw)));
      continue;
    }
    const result = coerceValue(field.type, raw[field.name], 'json', fieldLoc, rulesOf(field));
    if (result.ok) value[field.name] = result.value;
    else found.push(...result.errors);
  }
}

type ValueResult = { ok: true; value: unknown } | { ok: false; errors: PydanticErrorItem[] };

function coerceValue(type: GraphQLInputType, raw: unknown, source: Source, loc: LocSegment[], rules: readonly InputRule[]): ValueResult {
  // JSON null: fine for a nullable type (`X | None`); for a non-null one the type's own
  // error, e.g. `bool_type` for `sendEmail: null` (Pydantic's `bool = False`).
  if (raw === null && !isNonNullType(type)) return { ok: true, value: null };
  const nullable = getNullableType(type);

  if (isListType(nullable)) {
    // A query list is the repeated key; a single occurrence comes as a plain string.
    const items = source === 'text' ? (Array.isArray(raw) ? raw : [raw]) : raw;
    if (!Array.isArray(items)) return { ok: false, errors: [atLoc(loc, errors.listType(raw))] };
    const values: unknown[] = [];
    const itemErrors: PydanticErrorItem[] = [];
    items.forEach((item, index) => {
      const result = coerceValue(nullable.ofType, item, source, [...loc, index], rules);
      if (result.ok) values.push(result.value);
      else itemErrors.push(...result.errors);
    });
    return itemErrors.length > 0 ? { ok: false, errors: itemErrors } : { ok: true, value: values };
  }

  if (isInputObjectType(nullable)) {
    if (!isPlainObject(raw)) return { ok: false, errors: [atLoc(loc, errors.modelAttributesType(raw))] };
    const value: Record<string, unknown> = {};
    const fieldErrors: PydanticErrorItem[] = [];
    coerceMembers(Object.values(nullable.getFields()), raw, loc, () => [], value, fieldErrors);
    return fieldErrors.length > 0 ? { ok: false, errors: fieldErrors } : { ok: true, value };
  }

  if (!isLeafType(nullable)) throw new Error(`validateArguments: unsupported input type ${String(type)}`);
  // Starlette keeps the last of repeated keys for a non-list parameter.
  const single = source === 'text' && Array.isArray(raw) ? raw[raw.length - 1] : raw;
  const coerced = coerceLeaf(nullable, single, source);
  if (!coerced.ok) return { ok: false, errors: [atLoc(loc, coerced.error)] };
  const checked = checkFieldRules(rules, coerced.value, single);
  if (!checked.ok) return { ok: false, errors: [atLoc(loc, checked.error)] };
  const outOfRange = nullable.name === 'Int' ? checkGraphQLIntRange(checked.value as number, single) : null;
  if (outOfRange) return { ok: false, errors: [atLoc(loc, outOfRange)] };
  return { ok: true, value: checked.value };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * GraphQL default values are internal values; variables are external ones. They differ only
 * for enums whose internal value is not their name, so map those back to the name.
 */
function variableFromDefault(defaultValue: unknown, type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (defaultValue === null || defaultValue === undefined) return defaultValue;
  if (isListType(nullable)) {
    return Array.isArray(defaultValue)
      ? defaultValue.map((item) => variableFromDefault(item, nullable.ofType))
      : variableFromDefault(defaultValue, nullable.ofType);
  }
  if (isEnumType(nullable)) {
    return nullable.getValues().find((value) => value.value === defaultValue)?.name ?? defaultValue;
  }
  return defaultValue;
}
