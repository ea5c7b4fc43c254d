/**
 * Checks the rules declared on arguments (shared/schema/input-rules.ts) and words their failures
 * as Pydantic would: field rules in Pydantic's order (bounds first, then validators), and rules
 * that relate two arguments once every field is known, like a model validator. Used by both
 * interfaces: REST after reading each value from text or JSON, GraphQL on the values graphql-js
 * has already typed.
 */
import type { GraphQLArgument } from 'graphql';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { InputErrorItem } from '../../shared/errors';
import { validateEmailStr } from '../../shared/email/email-str';
import { pyLength } from '../../shared/email/python-unicode';
import { parseOrderBy } from '../../shared/order-by';
import { rulesOf, type InputRule } from '../../shared/schema/input-rules';
import * as errors from './pydantic-errors';
import type { LocatedLater } from './pydantic-errors';
import { unstorableReason } from './storable-text';

export type FieldCheck = { ok: true; value: unknown } | { ok: false; error: LocatedLater };

/** The default region of a phone number written without its country code, by notification language. */
const REGION_OF_LANGUAGE: Readonly<Record<string, CountryCode>> = {
  fr: 'FR',
  en: 'GB',
  es: 'ES',
  de: 'DE',
  it: 'IT',
  nl: 'NL',
  pt: 'PT',
};
const DEFAULT_PHONE_REGION: CountryCode = 'FR';

const isAbsent = (value: unknown) => value === undefined || value === null;

/**
 * One argument's value, already of its GraphQL type, against its own rules; the result is the value
 * to use (normalized where a rule says so, e.g. an e-mail address).
 */
export function checkFieldRules(rules: readonly InputRule[], value: unknown, raw: unknown = value): FieldCheck {
  if (isAbsent(value)) return { ok: true, value };
  // An e-mail address answers for itself: EmailStr refuses NUL and unpaired surrogates as unsafe
  // characters, with its own reason, or drops them with a quoted display name; what it returns is
  // always storable.
  const email = typeof value === 'string' && rules.some((rule) => rule.kind === 'email');
  const unstorable = email ? null : unstorableReason(value);
  if (unstorable) return { ok: false, error: errors.valueError(unstorable.tooDeep ? null : raw, unstorable.reason) };
  // Bounds before validators, and `le` before `ge`, as pydantic-core checks them.
  for (const rule of rules) {
    const failure = boundFailure(rule, value, raw);
    if (failure) return { ok: false, error: failure };
  }
  let current: unknown = value;
  for (const rule of rules) {
    const result = validatorResult(rule, current, raw);
    if (!result.ok) return result;
    current = result.value;
  }
  return { ok: true, value: current };
}

function boundFailure(rule: InputRule, value: unknown, raw: unknown): LocatedLater | null {
  if (rule.kind === 'range' && typeof value === 'number') {
    if (rule.le !== undefined && !(value <= rule.le)) return errors.lessThanEqual(raw, rule.le);
    if (rule.ge !== undefined && !(value >= rule.ge)) return errors.greaterThanEqual(raw, rule.ge);
  }
  if (rule.kind === 'length' && typeof value === 'string' && pyLength(value) > rule.max) {
    return errors.stringTooLong(raw, rule.max);
  }
  return null;
}

function validatorResult(rule: InputRule, value: unknown, raw: unknown): FieldCheck {
  const pass: FieldCheck = { ok: true, value };
  const refuse = (message: string): FieldCheck => ({ ok: false, error: errors.valueError(raw, message) });
  switch (rule.kind) {
    case 'email': {
      if (typeof value !== 'string') return pass;
      const checked = validateEmailStr(value);
      return checked.ok ? { ok: true, value: checked.normalized } : { ok: false, error: invalidEmail(raw, checked.reason) };
    }
    case 'orderBy': {
      // An empty value names the empty field, as a FastAPI validator splitting on commas reads it (issue 24).
      if (typeof value !== 'string') return pass;
      const { unknown } = parseOrderBy(value, rule.fields);
      if (unknown.length === 0) return pass;
      return refuse(`unknown order_by field '${unknown[0]!.replace(/^-/, '')}'; allowed: ${rule.fields.join(', ')}`);
    }
    case 'placeholders': {
      if (typeof value !== 'string') return pass;
      const unknown = [...value.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).find((name) => !rule.allowed.includes(name));
      // The allowed placeholders are in the document (the field's description), not in each message.
      return unknown === undefined ? pass : refuse(`unknown placeholder {${unknown}}`);
    }
    case 'searchTerms': {
      if (typeof value !== 'string') return pass;
      const terms = value.split(/\s+/).filter(Boolean);
      if (terms.length > rule.maxTerms) return refuse(`at most ${rule.maxTerms} search terms, got ${terms.length}`);
      if (terms.some((term) => pyLength(term) > rule.maxTermLength))
        return refuse(`a search term has at most ${rule.maxTermLength} characters`);
      return pass;
    }
    case 'pattern':
      if (typeof value !== 'string' || new RegExp(rule.pattern, 'u').test(value)) return pass;
      return { ok: false, error: errors.stringPatternMismatch(raw, rule.pattern) };
    case 'jsonObject':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? pass : refuse(JSON_OBJECT_REQUIRED);
    case 'jsonSize': {
      // The text as sent (a query value), counted as the document's `maxLength` counts it; a GraphQL value's JSON text.
      const length = typeof raw === 'string' ? pyLength(raw) : JSON.stringify(value).length;
      return length > rule.maxLength ? refuse(`JSON value longer than ${rule.maxLength} characters`) : pass;
    }
    default:
      return pass;
  }
}

/** Also the reference app's words (parity/fastapi_app.py `json_object`). */
export const JSON_OBJECT_REQUIRED = 'a JSON object is required, e.g. {"folder_sold":{"status":true}}';

/** Pydantic's own item for `EmailStr` (a `PydanticCustomError`, hence `reason` in ctx). */
function invalidEmail(input: unknown, reason: string): LocatedLater {
  return { type: 'value_error', msg: `value is not a valid email address: ${reason}`, input, ctx: { reason } };
}

/**
 * Rules that relate arguments (a phone number's region depends on the language, a send flag requires
 * its contact field), run by callers only once every argument has passed its own, as Pydantic runs a
 * model validator. `valid` names the arguments whose values passed; `values` is updated with
 * normalized values; `modelInput` is Pydantic's input of a missing field (the whole body).
 */
export function checkCrossRules(
  args: readonly GraphQLArgument[],
  values: Record<string, unknown>,
  valid: ReadonlySet<string>,
  modelInput: unknown,
): InputErrorItem[] {
  const found: InputErrorItem[] = [];
  const passed = new Set(valid);
  for (const arg of args) {
    for (const rule of rulesOf(arg)) {
      const value = values[arg.name];
      if (rule.kind === 'phone' && passed.has(arg.name) && typeof value === 'string') {
        const language = passed.has(rule.languageArgument) ? values[rule.languageArgument] : undefined;
        const region = (typeof language === 'string' && REGION_OF_LANGUAGE[language]) || DEFAULT_PHONE_REGION;
        const parsed = parsePhoneNumberFromString(value, region);
        if (!parsed || !parsed.isPossible()) {
          // The FastAPI ecosystem's phone type's words (pydantic-extra-types `PhoneNumber`).
          found.push(errors.atLoc([arg.name], errors.customValueError(value, 'value is not a valid phone number')));
          passed.delete(arg.name);
        } else {
          values[arg.name] = parsed.number;
        }
      }
      if (rule.kind === 'requiredWhen' && passed.has(rule.flag) && values[rule.flag] === true && isAbsent(value)) {
        found.push({ type: 'missing', loc: [arg.name], msg: `Field required when ${rule.flag} is true`, input: modelInput });
      }
    }
  }
  return found;
}
