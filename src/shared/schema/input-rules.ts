/**
 * What an argument must satisfy beyond its GraphQL type, declared on the args classes beside the
 * `@Field` it constrains (as type-graphql's examples declare theirs):
 *
 *   @Field(() => Int, { nullable: true, defaultValue: 100 })
 *   @Rules({ kind: 'range', ge: 0, le: 1000 })
 *   limit?: number | null;
 *
 * The rules travel in the GraphQL argument's `extensions`, so that the one validation pass
 * (api/contract), the OpenAPI document and the GraphQL and REST interfaces all read the same
 * declaration. This module only names them; api/contract checks them and words the errors.
 */
import { Extensions } from 'type-graphql';

export type InputRule =
  /** a number within bounds (Pydantic `ge` / `le`) */
  | { kind: 'range'; ge?: number; le?: number }
  /** text of at most `max` characters, counted as code points (Pydantic `max_length`) */
  | { kind: 'length'; max: number }
  /** text matching a regular expression (Pydantic `pattern`) */
  | { kind: 'pattern'; pattern: string }
  /** an e-mail address as Pydantic's `EmailStr` accepts it; the value becomes its normalized form */
  | { kind: 'email' }
  /** a possible phone number, normalized to E.164; the default region comes from the language argument */
  | { kind: 'phone'; languageArgument: string }
  /** comma-separated `field` / `-field` terms from `fields` (empty: the default order) */
  | { kind: 'orderBy'; fields: readonly string[] }
  /** `{name}` placeholders from `allowed` only */
  | { kind: 'placeholders'; allowed: readonly string[] }
  /** whitespace-separated terms: at most `maxTerms`, each at most `maxTermLength` characters */
  | { kind: 'searchTerms'; maxTerms: number; maxTermLength: number }
  /** a JSON object (not an array, a string, a number, a boolean) */
  | { kind: 'jsonObject' }
  /** a JSON value whose text is at most `maxLength` characters */
  | { kind: 'jsonSize'; maxLength: number }
  /** required when the boolean argument `flag` is true */
  | { kind: 'requiredWhen'; flag: string };

export const INPUT_RULES_EXTENSION = 'inputRules';

/** Declares the rules of one argument of an `@ArgsType` class. */
export function Rules(...rules: InputRule[]): PropertyDecorator & MethodDecorator & ClassDecorator {
  return Extensions({ [INPUT_RULES_EXTENSION]: rules });
}

/** The rules declared on a GraphQL argument (none when it has no `@Rules`). */
export function rulesOf(argument: { extensions?: Readonly<Record<string, unknown>> | null }): readonly InputRule[] {
  return (argument.extensions?.[INPUT_RULES_EXTENSION] as InputRule[] | undefined) ?? [];
}
