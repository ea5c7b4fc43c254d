/**
 * The pieces of Python's `str` and `unicodedata` that email-validator and `idna` lean on, answering
 * as FastAPI's Python does: its Unicode 14.0 database (python-unicode-data.json, generated from the
 * oracle's Python by parity/email_unicode_data.py), code points rather than UTF-16 units (Python's
 * `len`, iteration and ordering), `repr()`, `str.strip()` and the `\w` / `\s` of its `re` module.
 *
 * Node's own ICU is a newer Unicode (17 on Node 20.20): a character assigned since 14.0 is a letter
 * to Node but "unassigned", so unsafe, to FastAPI. Only NFC normalization is borrowed from Node
 * (`String.prototype.normalize`); it differs from Python's only for characters Python does not know,
 * which every path here rejects as unsafe before or after normalizing.
 */
import data from './python-unicode-data.json';

/** Flattened [start, value, start, value, ...] runs, the value holding up to the next start. */
function runTable(runs: number[]): (cp: number) => number {
  const starts = Int32Array.from(runs.filter((_, i) => i % 2 === 0));
  const values = Int32Array.from(runs.filter((_, i) => i % 2 === 1));
  return (cp) => values[lastAtMost(starts, cp)]!;
}

/** Flattened [start, end) pairs. */
export function rangeTable(pairs: number[]): (cp: number) => boolean {
  const starts = Int32Array.from(pairs.filter((_, i) => i % 2 === 0));
  const ends = Int32Array.from(pairs.filter((_, i) => i % 2 === 1));
  return (cp) => {
    const i = lastAtMost(starts, cp);
    return i >= 0 && cp < ends[i]!;
  };
}

/** Index of the last element ≤ value (-1 if none): Python's `bisect_right(...) - 1`. */
export function lastAtMost(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

const categoryIndex = runTable(data.categoryRuns);
const bidiIndex = runTable(data.bidiRuns);
const nameless = rangeTable(data.namelessRanges);
const names = new Map(Object.entries(data.names as Record<string, string>).map(([hex, name]) => [parseInt(hex, 16), name]));
const virama = new Set(data.virama);
const withDot = new Set(data.decomposesWithDot);
const space = rangeTable(data.spaceRanges);

/** `unicodedata.category`: two letters, `Cn` for unassigned. */
export function category(cp: number): string {
  return data.categories[categoryIndex(cp)]!;
}

/** `unicodedata.bidirectional`: '' for code points without one. */
export function bidirectional(cp: number): string {
  return data.bidiClasses[bidiIndex(cp)]!;
}

/** Whether `unicodedata.name(c)` answers (it raises for controls, surrogates, private use, unassigned and a few more). */
export function hasName(cp: number): boolean {
  return !['Cc', 'Cs', 'Co', 'Cn'].includes(category(cp)) && !nameless(cp);
}

/** `unicodedata.name`, for the characters that are displayed by name: those outside L, N, P and S. */
export function nameOf(cp: number): string | undefined {
  return names.get(cp);
}

/** `unicodedata.combining(c) == 9`: a virama (idna's CONTEXTJ rule). */
export function isVirama(cp: number): boolean {
  return virama.has(cp);
}

/** `"002E" in unicodedata.decomposition(c).split(" ")`. */
export function decomposesWithDot(cp: number): boolean {
  return withDot.has(cp);
}

/** A regex character class body (for the `u` flag) of flattened [start, end) pairs. */
function classSource(pairs: number[]): string {
  const at = (cp: number) => `\\u{${cp.toString(16)}}`;
  let source = '';
  for (let i = 0; i < pairs.length; i += 2) source += `${at(pairs[i]!)}-${at(pairs[i + 1]! - 1)}`;
  return source;
}

/** Python's `\w` and `\s` in a `str` pattern, as class bodies for a JavaScript `u` regex (whose own are ASCII-only or differ). */
export const WORD_CLASS = classSource(data.wordRanges);
export const SPACE_CLASS = classSource(data.spaceRanges);

/** `str.isspace()`, and so what `\s` matches and what `str.strip()` removes. */
export function isSpace(cp: number): boolean {
  return space(cp);
}

/** The code points of a string, as Python iterates it (a lone surrogate is one code point too). */
export function codePoints(text: string): number[] {
  return Array.from(text, (c) => c.codePointAt(0)!);
}

/** Python's `len()`. */
export function pyLength(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** Python's string ordering (by code point; JavaScript's `<` compares UTF-16 units). */
export function comparePy(a: string, b: string): number {
  const [x, y] = [codePoints(a), codePoints(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** `sorted(set_of_strings)`. */
export function sortedPy(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(comparePy);
}

/** `str.strip()` with no argument: Unicode whitespace as Python defines it (not JavaScript's `trim`). */
export function pyStrip(text: string): string {
  const cps = codePoints(text);
  let [start, end] = [0, cps.length];
  while (start < end && isSpace(cps[start]!)) start += 1;
  while (end > start && isSpace(cps[end - 1]!)) end -= 1;
  return String.fromCodePoint(...cps.slice(start, end));
}

/** `str.isprintable()` for one character: what `repr()` shows as itself. */
function isPrintable(cp: number): boolean {
  if (cp === 0x20) return true;
  const cat = category(cp);
  return !(cat[0] === 'C' || cat[0] === 'Z');
}

/** Python's `repr(str)`, which idna's and ipaddress's messages quote. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const cp of codePoints(text)) {
    const c = String.fromCodePoint(cp);
    if (c === quote || c === '\\') out += `\\${c}`;
    else if (c === '\t') out += '\\t';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || isPrintable(cp)) out += c;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

/**
 * email-validator's `safe_character_display`: a visible character in quotes (`repr`), any other
 * by its Unicode name, or `U+XXXX` when it has none (SPACE, NO-BREAK SPACE, U+0000...).
 */
export function safeCharacterDisplay(c: string): string {
  if (c === '\\') return '"\\"';
  const cp = c.codePointAt(0)!;
  if ('LNPS'.includes(category(cp)[0]!)) return pyRepr(c);
  const fallback = cp < 0xffff ? `U+${hex(cp, 4).toUpperCase()}` : `U+${hex(cp, 8).toUpperCase()}`;
  return nameOf(cp) ?? fallback;
}
