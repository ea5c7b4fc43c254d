/**
 * The small table of argument constraints (decisions.md: limit 0–1000, offset ≥ 0, custom_sms up
 * to 480 characters). One table serves GraphQL (this middleware), REST validation and OpenAPI.
 */
import type { MiddlewareFn } from 'type-graphql';
import { checkConstraints, type ConstraintTable } from './validation/constraints';
import { atLoc, valueError } from './pydantic-errors';
import { badUserInput } from '../../shared/errors';
import { unstorableReason } from './storable-text';

export const ARGUMENT_CONSTRAINTS: ConstraintTable = {
  limit: { ge: 0, le: 1000 },
  offset: { ge: 0 },
  custom_sms: { maxLength: 480 },
};

/**
 * Attached to the resolver classes whose fields take arguments (not globally: a global middleware
 * wraps every field of every item, a measurable cost on pages of 100).
 */
export const ArgumentConstraintsMiddleware: MiddlewareFn = ({ args }, next) => {
  const failures = Object.entries(args ?? {}).flatMap(([name, value]) => {
    const unstorable = unstorableReason(value);
    if (unstorable) return [atLoc([name], valueError(unstorable.tooDeep ? null : value, unstorable.reason))];
    const failure = checkConstraints(value, value, ARGUMENT_CONSTRAINTS[name]);
    return failure ? [atLoc([name], failure)] : [];
  });
  if (failures.length > 0) throw badUserInput(failures);
  return next();
};
