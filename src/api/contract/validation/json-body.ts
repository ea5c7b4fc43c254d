/**
 * Parsing a request body the way FastAPI does: Starlette's `request.json()` is Python's
 * `json.loads`, and a `json.JSONDecodeError` becomes (fastapi/routing.py) `{"type": "json_invalid",
 * "loc": ["body", e.pos], "msg": "JSON decode error", "input": {}, "ctx": {"error": e.msg}}`. The
 * scanner reproduces CPython 3.11's `json` module (Modules/_json.c, Lib/json/decoder.py): its
 * messages, its positions (`e.pos` counts code points), NaN, Infinity and -Infinity. (CPython 3.13
 * reports a trailing comma as "Illegal trailing comma before end of object/array" at the comma;
 * 3.11/3.12, reproduced here, say "Expecting value" / "Expecting property name enclosed in double
 * quotes" after it.)
 */

import { atLoc, type PydanticErrorItem } from '../pydantic-errors';

/**
 * `tooDeep`: nesting beyond Python's recursion limit. CPython raises RecursionError (not a
 * JSONDecodeError) and FastAPI answers 400 {"detail": "There was an error parsing the body"}.
 */
export type JsonBodyParse = { ok: true; value: unknown } | { ok: false; error: PydanticErrorItem } | { ok: false; tooDeep: true };

/** Arrays and objects nested deeper than this fail like CPython's `json` at its default recursion limit (1000). */
export const MAX_JSON_BODY_NESTING = 1000;

class NestingTooDeep extends Error {}

class DecodeError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(msg);
  }
}

/** Parses a JSON body; on failure returns FastAPI's `json_invalid` item. */
export function parseJsonBody(text: string): JsonBodyParse {
  try {
    const result = pythonJsonLoads(text);
    return result.ok ? result : { ok: false, error: jsonDecodeError(result.error.pos, result.error.msg) };
  } catch (error) {
    if (error instanceof NestingTooDeep) return { ok: false, tooDeep: true };
    throw error;
  }
}

/** FastAPI's item for a malformed JSON body, from Python's position and reason. */
export function jsonDecodeError(pos: number, msg: string): PydanticErrorItem {
  return atLoc(['body', pos], { type: 'json_invalid', msg: 'JSON decode error', input: {}, ctx: { error: msg } });
}

/** Python's `json.loads`; nesting beyond MAX_JSON_BODY_NESTING throws (see `parseJsonBody`). */
export function pythonJsonLoads(text: string): { ok: true; value: unknown } | { ok: false; error: { pos: number; msg: string } } {
  const chars = Array.from(text); // code points, so positions match Python's
  try {
    if (chars[0] === '\ufeff') throw new DecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    return { ok: true, value: new PythonJsonScanner(chars).decode() };
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    return { ok: false, error: { pos: error.pos, msg: error.msg } };
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const LITERALS = Object.entries({ null: null, true: true, false: false, NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity });
const NUMBER = /^(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/;

class PythonJsonScanner {
  /** arrays and objects open at the current position */
  private depth = 0;

  constructor(private readonly s: string[]) {}

  private enter(): void {
    this.depth += 1;
    if (this.depth > MAX_JSON_BODY_NESTING) throw new NestingTooDeep('JSON nested too deep');
  }

  decode(): unknown {
    const [value, end] = this.scanOnce(this.skipWhitespace(0));
    const after = this.skipWhitespace(end);
    if (after !== this.s.length) throw new DecodeError('Extra data', after);
    return value;
  }

  private skipWhitespace(index: number): number {
    let i = index;
    while (i < this.s.length && WHITESPACE.has(this.s[i]!)) i++;
    return i;
  }

  /** `scan_once`; a StopIteration there surfaces as "Expecting value" at the same index. */
  private scanOnce(index: number): [unknown, number] {
    const s = this.s;
    const c = s[index];
    if (c === undefined) throw new DecodeError('Expecting value', index);
    if (c === '"') return this.scanString(index + 1);
    if (c === '{' || c === '[') {
      this.enter();
      const result = c === '{' ? this.parseObject(index + 1) : this.parseArray(index + 1);
      this.depth -= 1;
      return result;
    }
    for (const [word, value] of LITERALS) if (this.startsWith(index, word)) return [value, index + word.length];
    const match = NUMBER.exec(s.slice(index, index + 1100).join(''));
    if (match === null) throw new DecodeError('Expecting value', index);
    return [Number(match[0]), index + match[0].length];
  }

  private startsWith(index: number, word: string): boolean {
    return this.s.slice(index, index + word.length).join('') === word;
  }

  private parseObject(start: number): [Record<string, unknown>, number] {
    const s = this.s;
    const object: Record<string, unknown> = {};
    let i = this.skipWhitespace(start);
    if (s[i] === '}') return [object, i + 1];
    for (;;) {
      if (s[i] !== '"') throw new DecodeError('Expecting property name enclosed in double quotes', i);
      const [key, afterKey] = this.scanString(i + 1);
      i = this.skipWhitespace(afterKey);
      if (s[i] !== ':') throw new DecodeError("Expecting ':' delimiter", i);
      i = this.skipWhitespace(i + 1);
      const [value, afterValue] = this.scanOnce(i);
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      i = this.skipWhitespace(afterValue);
      if (s[i] === '}') return [object, i + 1];
      if (s[i] !== ',') throw new DecodeError("Expecting ',' delimiter", i);
      i = this.skipWhitespace(i + 1);
    }
  }

  private parseArray(start: number): [unknown[], number] {
    const s = this.s;
    const items: unknown[] = [];
    let i = this.skipWhitespace(start);
    if (s[i] === ']') return [items, i + 1];
    for (;;) {
      const [value, afterValue] = this.scanOnce(i);
      items.push(value);
      i = this.skipWhitespace(afterValue);
      if (s[i] === ']') return [items, i + 1];
      if (s[i] !== ',') throw new DecodeError("Expecting ',' delimiter", i);
      i = this.skipWhitespace(i + 1);
    }
  }

  /** `scanstring` (strict): `start` is just past the opening quote. */
  private scanString(start: number): [string, number] {
    const s = this.s;
    const begin = start - 1;
    let out = '';
    let i = start;
    for (;;) {
      let c: string | undefined;
      for (; i < s.length; i++) {
        c = s[i]!;
        if (c === '"' || c === '\\') break;
        if (c.codePointAt(0)! <= 0x1f) throw new DecodeError('Invalid control character at', i);
        out += c;
      }
      if (i >= s.length) throw new DecodeError('Unterminated string starting at', begin);
      c = s[i]!;
      if (c === '"') return [out, i + 1];
      i += 1; // past the backslash
      if (i >= s.length) throw new DecodeError('Unterminated string starting at', begin);
      const escape = s[i]!;
      if (escape !== 'u') {
        const decoded = SIMPLE_ESCAPES[escape];
        if (decoded === undefined) throw new DecodeError('Invalid \\escape', i - 1);
        out += decoded;
        i += 1;
        continue;
      }
      const [unit, afterUnit] = this.scanU4(i + 1);
      i = afterUnit;
      let codePoint = unit;
      if (unit >= 0xd800 && unit <= 0xdbff && i + 6 < s.length && s[i] === '\\' && s[i + 1] === 'u') {
        const [low, afterLow] = this.scanU4(i + 2);
        if (low >= 0xdc00 && low <= 0xdfff) {
          codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          i = afterLow;
        }
      }
      out += codePoint >= 0xd800 && codePoint <= 0xdfff ? String.fromCharCode(codePoint) : String.fromCodePoint(codePoint);
    }
  }

  /** Four hex digits starting at `start` (just past the `u`); errors point at the backslash's `u` minus one. */
  private scanU4(start: number): [number, number] {
    const s = this.s;
    const end = start + 4;
    if (end >= s.length) throw new DecodeError('Invalid \\uXXXX escape', start - 1);
    let value = 0;
    for (let i = start; i < end; i++) {
      const digit = parseInt(s[i]!, 16);
      if (Number.isNaN(digit) || !/^[0-9a-fA-F]$/.test(s[i]!)) throw new DecodeError('Invalid \\uXXXX escape', end - 5);
      value = value * 16 + digit;
    }
    return [value, end];
  }
}

/** JSON's one-character escapes, after the backslash. */
export const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
