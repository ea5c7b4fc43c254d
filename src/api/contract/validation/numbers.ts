/**
 * Pydantic's lax parsing of strings as int / float / bool, ported from pydantic-core
 * `src/input/shared.rs` (`str_as_int`, `clean_int_str`, `strip_leading_zeros`,
 * `strip_underscores`, `str_as_float`, `str_as_bool`).
 */

/** Rust's `str::trim`: strips Unicode White_Space (unlike JS `trim`, it keeps U+FEFF). */
export function rustTrim(text: string): string {
  return text.replace(RUST_WHITESPACE_START, '').replace(RUST_WHITESPACE_END, '');
}
const RUST_WS_CLASS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const RUST_WHITESPACE_START = new RegExp(`^${RUST_WS_CLASS}+`);
const RUST_WHITESPACE_END = new RegExp(`${RUST_WS_CLASS}+$`);

/** What jiter's `NumberInt::try_from` accepts: a JSON integer and nothing else. */
const JSON_INTEGER = /^-?(0|[1-9][0-9]*)$/;
/** jiter refuses integers of more than 4300 digits, like CPython's int(). */
const MAX_INT_DIGITS = 4300;

export type IntParse = { ok: true; value: bigint } | { ok: false; error: 'int_parsing' | 'int_parsing_size' };

export function parseIntLikePydantic(text: string): IntParse {
  if (JSON_INTEGER.test(text)) {
    const digits = text.startsWith('-') ? text.length - 1 : text.length;
    if (digits > MAX_INT_DIGITS) return { ok: false, error: 'int_parsing_size' };
    return { ok: true, value: BigInt(text) };
  }
  const cleaned = cleanIntStr(text);
  if (cleaned !== null && JSON_INTEGER.test(cleaned) && cleaned.replace('-', '').length <= MAX_INT_DIGITS) {
    return { ok: true, value: BigInt(cleaned) };
  }
  return { ok: false, error: 'int_parsing' };
}

/** Port of pydantic-core `clean_int_str`; null means "not an integer". */
function cleanIntStr(original: string): string | null {
  let s = rustTrim(original);
  if (s.startsWith('+')) {
    if (s.startsWith('+-')) return null;
    s = s.slice(1);
  }
  let negative = false;
  if (s.startsWith('-')) {
    if (s.startsWith('--') || s.startsWith('-+')) return null;
    negative = true;
    s = s.slice(1);
  }
  const withoutZeros = stripLeadingZeros(s);
  if (withoutZeros === null) return null;
  s = withoutZeros;
  const dot = s.indexOf('.');
  if (dot >= 0) {
    const decimals = s.slice(dot + 1);
    if (decimals.length > 0 && /^0+$/.test(decimals)) s = s.slice(0, dot);
  }
  const sign = negative ? '-' : '';
  const withoutUnderscores = stripUnderscores(s);
  if (withoutUnderscores !== null) return sign + withoutUnderscores;
  // pydantic-core compares byte lengths; every change above removes ASCII only, so UTF-16
  // lengths change exactly when byte lengths do.
  if (original.length === s.length) return null;
  return sign + s;
}

function stripLeadingZeros(s: string): string | null {
  const first = s[0];
  if (first === undefined) return null;
  if (first !== '0') return (first >= '1' && first <= '9') || first === '-' ? s : null;
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '0' || c === '_') continue;
    if ((c >= '1' && c <= '9') || c === '-') return s.slice(i);
    if (c === '.') return s.slice(i - 1);
    return null;
  }
  return s.slice(-1);
}

/** `1_000` → `1000`; leading, trailing or doubled underscores are left alone (so they fail). */
function stripUnderscores(s: string): string | null {
  if (s.startsWith('_') || s.endsWith('_') || !s.includes('_') || s.includes('__')) return null;
  return s.replaceAll('_', '');
}

/** Rust's `f64::from_str` grammar (accepts inf/infinity/nan in any case, `1.`, `.5`). */
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$/i;

function rustParseFloat(text: string): number | null {
  if (!RUST_FLOAT.test(text)) return null;
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(lower);
}

/** Port of pydantic-core `str_as_float`: the trimmed text, else the untrimmed text without underscores. */
export function parseFloatLikePydantic(text: string): number | null {
  const direct = rustParseFloat(rustTrim(text));
  if (direct !== null) return direct;
  const stripped = stripUnderscores(text);
  return stripped === null ? null : rustParseFloat(stripped);
}

const FALSE_WORDS = new Set(['0', 'f', 'n', 'no', 'off', 'false']);
const TRUE_WORDS = new Set(['1', 't', 'y', 'on', 'yes', 'true']);

/** Port of pydantic-core `str_as_bool` (no trimming: " true" is refused; `eq_ignore_ascii_case` folds ASCII letters only). */
export function parseBoolLikePydantic(text: string): boolean | null {
  const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return FALSE_WORDS.has(lower) ? false : TRUE_WORDS.has(lower) ? true : null;
}
