/**
 * The validation pass over arguments that already have their GraphQL types (GraphQL requests):
 * every argument's rules, then the rules between arguments, every failure reported at once. The
 * values are normalized in place (an e-mail address, a phone number in E.164).
 */
import { getNamedType, type GraphQLArgument } from 'graphql';
import type { InputErrorItem } from '../../shared/errors';
import { rulesOf } from '../../shared/schema/input-rules';
import { checkCrossRules, checkFieldRules } from './argument-rules';
import * as errors from './pydantic-errors';
import { atLoc } from './pydantic-errors';

export function checkArgumentValues(args: readonly GraphQLArgument[], values: Record<string, unknown>): InputErrorItem[] {
  const found: InputErrorItem[] = [];
  const passed = new Set<string>();
  for (const arg of args) {
    if (!(arg.name in values)) continue;
    // A JSON filter given as a string over GraphQL is a client that serialized its object (REST's
    // habit): containment of a string never matches a document, so it is refused rather than
    // answered with an empty page.
    if (typeof values[arg.name] === 'string' && getNamedType(arg.type).name === 'JSON') {
      const message = 'a JSON filter takes the JSON value itself (an object in the query or a variable), not its text';
      found.push(atLoc([arg.name], errors.valueError(values[arg.name], message)));
      continue;
    }
    const checked = checkFieldRules(rulesOf(arg), values[arg.name]);
    if (checked.ok) {
      values[arg.name] = checked.value;
      passed.add(arg.name);
    } else {
      found.push(atLoc([arg.name], checked.error));
    }
  }
  // Like a Pydantic model validator: only once every argument has passed its own checks.
  if (found.length > 0) return found;
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null));
  found.push(...checkCrossRules(args, values, passed, given));
  return found;
}
