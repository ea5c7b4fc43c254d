/**
 * The validation pass over arguments that already have their GraphQL types (GraphQL requests):
 * every argument's rules, then the rules between arguments, every failure reported at once. The
 * values are normalized in place (an e-mail address, a phone number in E.164).
 */
import type { GraphQLArgument } from 'graphql';
import type { InputErrorItem } from '../../shared/errors';
import { rulesOf } from '../../shared/schema/input-rules';
import { checkCrossRules, checkFieldRules } from './argument-rules';
import { atLoc } from './pydantic-errors';

export function checkArgumentValues(args: readonly GraphQLArgument[], values: Record<string, unknown>): InputErrorItem[] {
  const found: InputErrorItem[] = [];
  const passed = new Set<string>();
  for (const arg of args) {
    if (!(arg.name in values)) continue;
    const checked = checkFieldRules(rulesOf(arg), values[arg.name]);
    if (checked.ok) {
      values[arg.name] = checked.value;
      passed.add(arg.name);
    } else {
      found.push(atLoc([arg.name], checked.error));
    }
  }
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined && value !== null));
  found.push(...checkCrossRules(args, values, passed, given));
  return found;
}
