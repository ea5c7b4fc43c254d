/**
 * Field constraints checked after a value parsed, like Pydantic's `Field(ge=, le=, max_length=)`.
 * Pydantic checks them in this order (pydantic-core `src/validators/int.rs` ConstrainedInt:
 * multiple_of, le, lt, ge, gt), and stops at the first failure of a field.
 */

import * as errors from '../pydantic-errors';
import type { LocatedLater } from '../pydantic-errors';

export interface ArgumentConstraints {
  /** greater than or equal (numbers) */
  ge?: number;
  /** less than or equal (numbers) */
  le?: number;
  /** maximum length in characters, as Python counts them (code points) (strings) */
  maxLength?: number;
}

/** Constraints keyed by argument name, e.g. `{ limit: { ge: 0, le: 1000 }, offset: { ge: 0 } }`. */
export type ConstraintTable = Record<string, ArgumentConstraints>;

/** GraphQL `Int` is 32-bit (graphql-js `GRAPHQL_MAX_INT` / `GRAPHQL_MIN_INT`). */
export const GRAPHQL_INT_RANGE = { ge: -2147483648, le: 2147483647 } as const;

export function checkConstraints(
  value: unknown,
  raw: unknown,
  constraints: ArgumentConstraints | undefined,
): LocatedLater | null {
  if (constraints === undefined) return null;
  if (typeof value === 'number') {
    if (constraints.le !== undefined && !(value <= constraints.le)) return errors.lessThanEqual(raw, constraints.le);
    if (constraints.ge !== undefined && !(value >= constraints.ge)) return errors.greaterThanEqual(raw, constraints.ge);
  }
  if (typeof value === 'string' && constraints.maxLength !== undefined) {
    if (Array.from(value).length > constraints.maxLength) return errors.stringTooLong(raw, constraints.maxLength);
  }
  return null;
}

/**
 * Python ints are unbounded, a GraphQL Int is not: a value Pydantic would accept but graphql-js
 * would refuse is reported here as a 422 with Pydantic's own bound errors (a deliberate
 * difference from the FastAPI service, which has no such limit), instead of a 500 later.
 */
export function checkGraphQLIntRange(value: number, raw: unknown): LocatedLater | null {
  if (value > GRAPHQL_INT_RANGE.le) return errors.lessThanEqual(raw, GRAPHQL_INT_RANGE.le);
  if (value < GRAPHQL_INT_RANGE.ge) return errors.greaterThanEqual(raw, GRAPHQL_INT_RANGE.ge);
  return null;
}
