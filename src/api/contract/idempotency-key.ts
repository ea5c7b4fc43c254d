/**
 * The `Idempotency-Key` request header of lead creation, declared like a FastAPI header parameter
 * (`idempotency_key: str | None = Header(None, max_length=255, pattern=...)`): 1 to 255 visible
 * ASCII characters. REST validates it with the route's other parameters; GraphQL before executing.
 */
import { GraphQLString, type GraphQLArgument } from 'graphql';
import type { InputErrorItem } from '../../shared/errors';
import { INPUT_RULES_EXTENSION, type InputRule } from '../../shared/schema/input-rules';
import { checkFieldRules } from './argument-rules';
import { atLoc } from './pydantic-errors';

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotency_key';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const RULES: InputRule[] = [
  { kind: 'length', max: 255 },
  { kind: 'pattern', pattern: '^[!-~]+$' },
];

/** As an argument of the REST route, located in the headers (FastAPI: underscores become hyphens). */
export const IDEMPOTENCY_KEY_PARAMETER: GraphQLArgument = {
  name: IDEMPOTENCY_KEY_ARGUMENT,
  description: 'the same key with the same body within 24 h returns the first response and creates nothing',
  type: GraphQLString,
  defaultValue: undefined,
  deprecationReason: undefined,
  extensions: { [INPUT_RULES_EXTENSION]: RULES },
  astNode: undefined,
};

/** The header's value, or the 422 item for it. */
export function checkIdempotencyKey(
  header: string | string[] | undefined,
): { ok: true; value?: string } | { ok: false; item: InputErrorItem } {
  const raw = Array.isArray(header) ? header[header.length - 1] : header;
  if (raw === undefined) return { ok: true };
  const checked = checkFieldRules(RULES, raw);
  if (!checked.ok) return { ok: false, item: atLoc(['header', IDEMPOTENCY_KEY_HEADER], checked.error) };
  return { ok: true, value: raw };
}
