/**
 * Builders for the items of a FastAPI/Pydantic v2 422 body: `{"detail": [item, ...]}`.
 *
 * Every `type` and `msg` below is copied from pydantic-core's `src/errors/types.rs`
 * (`ErrorType::message_template_python`), and was checked against pydantic 2.13.4 /
 * pydantic-core 2.46.4 running `TypeAdapter(...).validate_python(...)` (see
 * test/rest/validation/fixtures/). The `ctx` keys are the ones `ValidationError.errors()`
 * emits for the error types that carry context.
 */

import type { InputErrorItem, LocSegment } from '../../shared/errors';

export type { LocSegment } from '../../shared/errors';

export type Location = 'query' | 'path' | 'body' | 'header';

export type PydanticErrorItem = InputErrorItem;

/** An error before it is given its location (pydantic-core's `ValLineError` without `loc`). */
export type LocatedLater = Omit<PydanticErrorItem, 'loc'>;

export function atLoc(loc: LocSegment[], error: LocatedLater): PydanticErrorItem {
  // Keep the key order of FastAPI's JSON: type, loc, msg, input, ctx.
  const item: PydanticErrorItem = { type: error.type, loc, msg: error.msg, input: error.input };
  if (error.ctx !== undefined) item.ctx = error.ctx;
  return item;
}

// --- missing ------------------------------------------------------------------------------

/**
 * `missing` / "Field required". FastAPI's `get_missing_field_error` (fastapi/_compat/v2.py)
 * sets `input` to None for query/path/header parameters; inside a body model Pydantic itself
 * reports the whole body dict as input.
 */
export function missing(input: unknown): LocatedLater {
  return { type: 'missing', msg: 'Field required', input };
}

// --- int ----------------------------------------------------------------------------------

export function intParsing(input: unknown): LocatedLater {
  return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer', input };
}

export function intParsingSize(input: unknown): LocatedLater {
  return { type: 'int_parsing_size', msg: 'Unable to parse input string as an integer, exceeded maximum size', input };
}

export function intType(input: unknown): LocatedLater {
  return { type: 'int_type', msg: 'Input should be a valid integer', input };
}

export function intFromFloat(input: unknown): LocatedLater {
  return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part', input };
}

export function finiteNumber(input: unknown): LocatedLater {
  return { type: 'finite_number', msg: 'Input should be a finite number', input };
}

// --- float --------------------------------------------------------------------------------

export function floatParsing(input: unknown): LocatedLater {
  return { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number', input };
}

export function floatType(input: unknown): LocatedLater {
  return { type: 'float_type', msg: 'Input should be a valid number', input };
}

// --- bool ---------------------------------------------------------------------------------

export function boolParsing(input: unknown): LocatedLater {
  return { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input', input };
}

export function boolType(input: unknown): LocatedLater {
  return { type: 'bool_type', msg: 'Input should be a valid boolean', input };
}

// --- str ----------------------------------------------------------------------------------

export function stringType(input: unknown): LocatedLater {
  return { type: 'string_type', msg: 'Input should be a valid string', input };
}

export function stringTooLong(input: unknown, maxLength: number): LocatedLater {
  return {
    type: 'string_too_long',
    msg: `String should have at most ${maxLength} character${maxLength === 1 ? '' : 's'}`,
    input,
    ctx: { max_length: maxLength },
  };
}

export function stringPatternMismatch(input: unknown, pattern: string): LocatedLater {
  return { type: 'string_pattern_mismatch', msg: `String should match pattern '${pattern}'`, input, ctx: { pattern } };
}

// --- uuid ---------------------------------------------------------------------------------

export function uuidParsing(input: unknown, reason: string): LocatedLater {
  return { type: 'uuid_parsing', msg: `Input should be a valid UUID, ${reason}`, input, ctx: { error: reason } };
}

export function uuidType(input: unknown): LocatedLater {
  return { type: 'uuid_type', msg: 'UUID input should be a string, bytes or UUID object', input };
}

// --- datetime -----------------------------------------------------------------------------

export function datetimeFromDateParsing(input: unknown, reason: string): LocatedLater {
  return {
    type: 'datetime_from_date_parsing',
    msg: `Input should be a valid datetime or date, ${reason}`,
    input,
    ctx: { error: reason },
  };
}

export function datetimeParsing(input: unknown, reason: string): LocatedLater {
  return { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${reason}`, input, ctx: { error: reason } };
}

export function datetimeType(input: unknown): LocatedLater {
  return { type: 'datetime_type', msg: 'Input should be a valid datetime', input };
}

// --- json ---------------------------------------------------------------------------------

export function jsonInvalid(input: unknown, reason: string): LocatedLater {
  return { type: 'json_invalid', msg: `Invalid JSON: ${reason}`, input, ctx: { error: reason } };
}

export function jsonType(input: unknown): LocatedLater {
  return { type: 'json_type', msg: 'JSON input should be string, bytes or bytearray', input };
}

// --- enum ---------------------------------------------------------------------------------

/**
 * `enum`: pydantic-core joins the `repr()` of the allowed values with ", " and puts " or "
 * before the last one (`expected` in `src/validators/enum_.rs`, built with `join_with_or`).
 */
export function enumError(input: unknown, allowed: readonly string[]): LocatedLater {
  const expected = joinWithOr(allowed.map(pythonStrRepr));
  return { type: 'enum', msg: `Input should be ${expected}`, input, ctx: { expected } };
}

function joinWithOr(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Python's `repr(str)`: single quotes unless the text holds a single quote and no double quote. */
export function pythonStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let body = '';
  for (const ch of text) {
    if (ch === '\\') body += '\\\\';
    else if (ch === quote) body += `\\${ch}`;
    else if (ch === '\n') body += '\\n';
    else if (ch === '\r') body += '\\r';
    else if (ch === '\t') body += '\\t';
    else if (ch < ' ' || ch === '\x7f') body += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else body += ch;
  }
  return quote + body + quote;
}

// --- number / length constraints ----------------------------------------------------------

export function greaterThanEqual(input: unknown, ge: number): LocatedLater {
  return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${ge}`, input, ctx: { ge } };
}

export function lessThanEqual(input: unknown, le: number): LocatedLater {
  return { type: 'less_than_equal', msg: `Input should be less than or equal to ${le}`, input, ctx: { le } };
}

// --- model / body -------------------------------------------------------------------------

/**
 * FastAPI validates a body model with `from_attributes=True` (fastapi/_compat/v2.py
 * `ModelField.validate`), so a non-object body gives `model_attributes_type`, not `model_type`.
 */
export function modelAttributesType(input: unknown): LocatedLater {
  return {
    type: 'model_attributes_type',
    msg: 'Input should be a valid dictionary or object to extract fields from',
    input,
  };
}

// --- containers -----------------------------------------------------------------------------

export function listType(input: unknown): LocatedLater {
  return { type: 'list_type', msg: 'Input should be a valid list', input };
}

/**
 * Pydantic's item for a validator that raised `ValueError(message)`: a custom scalar refused the
 * value, or a product rule (order_by, custom_sms). FastAPI serializes the exception object in
 * `ctx` with `jsonable_encoder`, which makes it `{}`; the words are in `msg` only.
 */
export function valueError(input: unknown, message: string): LocatedLater {
  return { type: 'value_error', msg: `Value error, ${message}`, input, ctx: { error: {} } };
}

/**
 * A `PydanticCustomError('value_error', message)`: the message as is, no ctx. pydantic-extra-types'
 * `PhoneNumber` raises `PydanticCustomError('value_error', 'value is not a valid phone number')`.
 */
export function customValueError(input: unknown, message: string): LocatedLater {
  return { type: 'value_error', msg: message, input };
}
