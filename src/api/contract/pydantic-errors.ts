/**
 * Builders for the items of a FastAPI/Pydantic v2 422 body: `{"detail": [item, ...]}`. Every `type`
 * and `msg` is copied from pydantic-core's `src/errors/types.rs` (`ErrorType::message_template_python`),
 * and was checked against pydantic 2.13.4 / pydantic-core 2.46.4 running
 * `TypeAdapter(...).validate_python(...)` (test/rest/validation/fixtures/). The `ctx` keys are the
 * ones `ValidationError.errors()` emits for the error types that carry context.
 */

import { pyRepr } from '../../shared/email/python-unicode';
import type { InputErrorItem, LocSegment } from '../../shared/errors';

export type { LocSegment } from '../../shared/errors';

export type Location = 'query' | 'path' | 'body' | 'header';

export type PydanticErrorItem = InputErrorItem;

/** An error before it is given its location (pydantic-core's `ValLineError` without `loc`). */
export type LocatedLater = Omit<PydanticErrorItem, 'loc'>;

/** An error type whose item is its message and the input, nothing else. */
const simple =
  (type: string, msg: string) =>
  (input: unknown): LocatedLater => ({ type, msg, input });

export function atLoc(loc: LocSegment[], error: LocatedLater): PydanticErrorItem {
  // Keep the key order of FastAPI's JSON: type, loc, msg, input, ctx.
  const item: PydanticErrorItem = { type: error.type, loc, msg: error.msg, input: error.input };
  if (error.ctx !== undefined) item.ctx = error.ctx;
  return item;
}

/**
 * `missing` / "Field required". FastAPI's `get_missing_field_error` (fastapi/_compat/v2.py)
 * sets `input` to None for query/path/header parameters; inside a body model Pydantic itself
 * reports the whole body dict as input.
 */
export const missing = simple('missing', 'Field required');
export const intParsing = simple('int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
export const intParsingSize = simple('int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size');
export const intType = simple('int_type', 'Input should be a valid integer');
export const intFromFloat = simple('int_from_float', 'Input should be a valid integer, got a number with a fractional part');
export const finiteNumber = simple('finite_number', 'Input should be a finite number');
export const floatParsing = simple('float_parsing', 'Input should be a valid number, unable to parse string as a number');
export const floatType = simple('float_type', 'Input should be a valid number');
export const boolParsing = simple('bool_parsing', 'Input should be a valid boolean, unable to interpret input');
export const boolType = simple('bool_type', 'Input should be a valid boolean');
export const stringType = simple('string_type', 'Input should be a valid string');
export const uuidType = simple('uuid_type', 'UUID input should be a string, bytes or UUID object');
export const datetimeType = simple('datetime_type', 'Input should be a valid datetime');
export const jsonType = simple('json_type', 'JSON input should be string, bytes or bytearray');
export const listType = simple('list_type', 'Input should be a valid list');
/**
 * FastAPI validates a body model with `from_attributes=True` (fastapi/_compat/v2.py
 * `ModelField.validate`), so a non-object body gives `model_attributes_type`, not `model_type`.
 */
export const modelAttributesType = simple('model_attributes_type', 'Input should be a valid dictionary or object to extract fields from');

/** An error type whose message ends with the reason, also given in ctx as `error`. */
const withReason =
  (type: string, msg: string) =>
  (input: unknown, reason: string): LocatedLater => ({ type, msg: `${msg}, ${reason}`, input, ctx: { error: reason } });

export const uuidParsing = withReason('uuid_parsing', 'Input should be a valid UUID');
export const datetimeFromDateParsing = withReason('datetime_from_date_parsing', 'Input should be a valid datetime or date');
export const datetimeParsing = withReason('datetime_parsing', 'Input should be a valid datetime');

export function jsonInvalid(input: unknown, reason: string): LocatedLater {
  return { type: 'json_invalid', msg: `Invalid JSON: ${reason}`, input, ctx: { error: reason } };
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

export function greaterThanEqual(input: unknown, ge: number): LocatedLater {
  return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${ge}`, input, ctx: { ge } };
}

export function lessThanEqual(input: unknown, le: number): LocatedLater {
  return { type: 'less_than_equal', msg: `Input should be less than or equal to ${le}`, input, ctx: { le } };
}

/**
 * `enum`: pydantic-core joins the `repr()` of the allowed values with ", " and puts " or "
 * before the last one (`expected` in `src/validators/enum_.rs`, built with `join_with_or`).
 */
export function enumError(input: unknown, allowed: readonly string[]): LocatedLater {
  const expected = joinWithOr(allowed.map(pyRepr));
  return { type: 'enum', msg: `Input should be ${expected}`, input, ctx: { expected } };
}

function joinWithOr(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
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
