/**
 * Per-type coercion of one raw value, as Pydantic v2 validates it in lax mode, into the GraphQL
 * variable value. Two sources, as in FastAPI: `text` (a query, path or header value, always a
 * string) and `json` (a value of the parsed body, validated with `validate_python`: numbers,
 * booleans, null, arrays and objects can appear).
 */
import { type GraphQLEnumType, type GraphQLScalarType, isEnumType } from 'graphql';
import { parseDateTimeLikePydantic } from '../../../shared/datetime';
import { parseJsonLikePydantic } from './json-query';
import { parseBoolLikePydantic, parseFloatLikePydantic, parseIntLikePydantic } from './numbers';
import * as errors from '../pydantic-errors';
import type { LocatedLater } from '../pydantic-errors';
import { parseUuid } from './uuid';

export type Source = 'text' | 'json';
export type Coercion = { ok: true; value: unknown } | { ok: false; error: LocatedLater };

/** Scalar names as type-graphql / graphql-scalars register them. */
export const SCALAR = {
  Int: 'Int',
  Float: 'Float',
  Boolean: 'Boolean',
  String: 'String',
  UUID: 'UUID',
  DateTimeISO: 'DateTimeISO',
  JSON: 'JSON',
} as const;

const ok = (value: unknown): Coercion => ({ ok: true, value });
const fail = (error: LocatedLater): Coercion => ({ ok: false, error });

export function coerceLeaf(type: GraphQLScalarType | GraphQLEnumType, raw: unknown, source: Source): Coercion {
  if (isEnumType(type)) return coerceEnum(type, raw);
  switch (type.name) {
    case SCALAR.Int:
      return coerceInt(raw);
    case SCALAR.Float:
      return coerceFloat(raw);
    case SCALAR.Boolean:
      return coerceBoolean(raw);
    case SCALAR.String:
      return typeof raw === 'string' ? ok(raw) : fail(errors.stringType(raw));
    case SCALAR.UUID:
      return coerceUuid(raw);
    case SCALAR.DateTimeISO:
      return coerceDateTime(raw);
    case SCALAR.JSON:
      return coerceJson(raw, source);
    default:
      return coerceCustomScalar(type, raw);
  }
}

function coerceInt(raw: unknown): Coercion {
  if (typeof raw === 'string') {
    const parsed = parseIntLikePydantic(raw);
    if (!parsed.ok) return fail(parsed.error === 'int_parsing_size' ? errors.intParsingSize(raw) : errors.intParsing(raw));
    return ok(Number(parsed.value));
  }
  if (typeof raw === 'boolean') return ok(raw ? 1 : 0); // Python's bool is an int
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return fail(errors.finiteNumber(raw));
    if (!Number.isInteger(raw)) return fail(errors.intFromFloat(raw));
    // pydantic-core `float_as_int`: a float outside i64 is `int_parsing_size`.
    if (Math.abs(raw) >= 2 ** 63) return fail(errors.intParsingSize(raw));
    return ok(raw);
  }
  return fail(errors.intType(raw));
}

/**
 * Python ints are unbounded, a GraphQL Int is 32-bit (graphql-js `GRAPHQL_MAX_INT` / `GRAPHQL_MIN_INT`):
 * a value Pydantic would accept but graphql-js would refuse is reported with Pydantic's own bound
 * errors (a deliberate difference from the FastAPI service, which has no such limit), instead of
 * failing later.
 */
export const GRAPHQL_INT_RANGE = { ge: -2147483648, le: 2147483647 } as const;

export function checkGraphQLIntRange(value: number, raw: unknown): LocatedLater | null {
  if (value > GRAPHQL_INT_RANGE.le) return errors.lessThanEqual(raw, GRAPHQL_INT_RANGE.le);
  if (value < GRAPHQL_INT_RANGE.ge) return errors.greaterThanEqual(raw, GRAPHQL_INT_RANGE.ge);
  return null;
}

function coerceFloat(raw: unknown): Coercion {
  const value =
    typeof raw === 'string' ? parseFloatLikePydantic(raw) : typeof raw === 'number' || typeof raw === 'boolean' ? Number(raw) : undefined;
  if (value === undefined) return fail(errors.floatType(raw));
  if (value === null) return fail(errors.floatParsing(raw));
  // Pydantic accepts inf/nan; a GraphQL Float cannot carry them, so they are refused with
  // the error Pydantic gives when `allow_inf_nan=False`.
  if (!Number.isFinite(value)) return fail(errors.finiteNumber(raw));
  return ok(value);
}

function coerceBoolean(raw: unknown): Coercion {
  if (typeof raw === 'boolean') return ok(raw);
  if (typeof raw === 'string') {
    const value = parseBoolLikePydantic(raw);
    return value === null ? fail(errors.boolParsing(raw)) : ok(value);
  }
  if (typeof raw === 'number') {
    // pydantic-core: integral numbers go through `int_as_bool` (only 0 and 1); others are the wrong type.
    if (!Number.isInteger(raw)) return fail(errors.boolType(raw));
    if (raw === 0 || raw === 1) return ok(raw === 1);
    return fail(errors.boolParsing(raw));
  }
  return fail(errors.boolType(raw));
}

function coerceUuid(raw: unknown): Coercion {
  if (typeof raw !== 'string') return fail(errors.uuidType(raw));
  const parsed = parseUuid(raw);
  return parsed.ok ? ok(parsed.value) : fail(errors.uuidParsing(raw, parsed.reason));
}

function coerceDateTime(raw: unknown): Coercion {
  // A number in a JSON body is a unix timestamp for Pydantic, as is a numeric string.
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : null;
  if (text === null) return fail(errors.datetimeType(raw));
  const parsed = parseDateTimeLikePydantic(text);
  if (parsed.ok) return ok(parsed.value);
  return fail(
    parsed.type === 'datetime_parsing' ? errors.datetimeParsing(raw, parsed.reason) : errors.datetimeFromDateParsing(raw, parsed.reason),
  );
}

/** A query value is JSON text (Pydantic `Json`); a body value is already JSON (Pydantic `Any`). */
function coerceJson(raw: unknown, source: Source): Coercion {
  if (source === 'json') return ok(raw);
  if (typeof raw !== 'string') return fail(errors.jsonType(raw));
  const parsed = parseJsonLikePydantic(raw);
  return parsed.ok ? ok(parsed.value) : fail(errors.jsonInvalid(raw, parsed.reason));
}

/**
 * Enum: the REST spelling is the enum's internal value when it is a string (the Python
 * enum's value, e.g. `counter_inspection`), else its GraphQL name; the variable is the name.
 */
function coerceEnum(type: GraphQLEnumType, raw: unknown): Coercion {
  const values = type.getValues();
  const match = values.find((value) => restSpellingOfEnumValue(value) === raw);
  if (match) return ok(match.name);
  return fail(errors.enumError(raw, values.map(restSpellingOfEnumValue)));
}

export function restSpellingOfEnumValue(value: { name: string; value: unknown }): string {
  return typeof value.value === 'string' ? value.value : value.name;
}

/** Any other scalar: trust its own `parseValue`, report its message as a `value_error`. */
function coerceCustomScalar(type: GraphQLScalarType, raw: unknown): Coercion {
  try {
    type.parseValue(raw);
    return ok(raw);
  } catch (error) {
    return fail(errors.valueError(raw, error instanceof Error ? error.message : String(error)));
  }
}
