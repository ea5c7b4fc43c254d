/**
 * Argument values PostgreSQL cannot take: `text` and `jsonb` refuse the NUL character, `jsonb`
 * refuses unpaired UTF-16 surrogates (JSON.stringify writes them as `\udXXX` escapes), and a JSON
 * value nested thousands of levels deep overflows the stack of whatever walks it (type-graphql's
 * argument conversion first). Reaching the database, each was a 500; checked up front, each is the
 * client's 422 / BAD_USER_INPUT. Found by test/fuzz.
 */

/** jiter's recursion limit, which the REST layer's JSON query parameters already apply. */
export const MAX_JSON_ARGUMENT_DEPTH = 200;

const UNSTORABLE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface Unstorable {
  reason: string;
  /** too deep to echo back as the error's `input`: serializing it would overflow too */
  tooDeep: boolean;
}

const BAD_TEXT: Unstorable = { reason: 'text must not contain NUL characters or unpaired surrogates', tooDeep: false };

/** Why the value cannot be stored or searched for, or null when it can. Iterative: no recursion to overflow. */
export function unstorableReason(value: unknown): Unstorable | null {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE_TEXT.test(current)) return BAD_TEXT;
    } else if (typeof current === 'object' && current !== null && !(current instanceof Date)) {
      if (depth >= MAX_JSON_ARGUMENT_DEPTH)
        return { reason: `JSON nested more than ${MAX_JSON_ARGUMENT_DEPTH} levels deep`, tooDeep: true };
      for (const [key, item] of Object.entries(current)) {
        if (UNSTORABLE_TEXT.test(key)) return BAD_TEXT;
        pending.push({ value: item, depth: depth + 1 });
      }
    }
  }
  return null;
}
