/**
 * Python ints are unbounded, a GraphQL Int is not: a value Pydantic would accept but graphql-js
 * would refuse is reported with Pydantic's own bound errors (a deliberate difference from the
 * FastAPI service, which has no such limit), instead of failing later.
 */
import * as errors from '../pydantic-errors';
import type { LocatedLater } from '../pydantic-errors';

/** GraphQL `Int` is 32-bit (graphql-js `GRAPHQL_MAX_INT` / `GRAPHQL_MIN_INT`). */
export const GRAPHQL_INT_RANGE = { ge: -2147483648, le: 2147483647 } as const;

export function checkGraphQLIntRange(value: number, raw: unknown): LocatedLater | null {
  if (value > GRAPHQL_INT_RANGE.le) return errors.lessThanEqual(raw, GRAPHQL_INT_RANGE.le);
  if (value < GRAPHQL_INT_RANGE.ge) return errors.greaterThanEqual(raw, GRAPHQL_INT_RANGE.ge);
  return null;
}
