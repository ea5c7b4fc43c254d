/**
 * JSON parsing with the error reasons of pydantic's `Json` type.
 *
 * pydantic-core parses `Json` input with jiter (`src/validators/json.rs`, `map_json_err`:
 * `error.description(json_bytes)` = "<JsonErrorType> at line L column C"). This is a port of
 * jiter's parser (crates/jiter/src/parse.rs, value.rs, number_decoder.rs, string_decoder.rs)
 * as far as it decides which error and which byte index is reported; messages are jiter's
 * `impl Display for JsonErrorType` (copied from serde_json). `allow_inf_nan` is on, as in
 * pydantic (NaN, Infinity, -Infinity are accepted).
 */

import { SIMPLE_ESCAPES } from './json-body';

export type JsonTextParse = { ok: true; value: unknown } | { ok: false; reason: string };

const MESSAGES = {
  EofWhileParsingList: 'EOF while parsing a list',
  EofWhileParsingObject: 'EOF while parsing an object',
  EofWhileParsingString: 'EOF while parsing a string',
  EofWhileParsingValue: 'EOF while parsing a value',
  ExpectedColon: 'expected `:`',
  ExpectedListCommaOrEnd: 'expected `,` or `]`',
  ExpectedObjectCommaOrEnd: 'expected `,` or `}`',
  ExpectedSomeIdent: 'expected ident',
  ExpectedSomeValue: 'expected value',
  InvalidEscape: 'invalid escape',
  InvalidNumber: 'invalid number',
  NumberOutOfRange: 'number out of range',
  InvalidUnicodeCodePoint: 'invalid unicode code point',
  ControlCharacterWhileParsingString: 'control character (\\u0000-\\u001F) found while parsing a string',
  KeyMustBeAString: 'key must be a string',
  LoneLeadingSurrogateInHexEscape: 'lone leading surrogate in hex escape',
  TrailingComma: 'trailing comma',
  TrailingCharacters: 'trailing characters',
  UnexpectedEndOfHexEscape: 'unexpected end of hex escape',
  RecursionLimitExceeded: 'recursion limit exceeded',
} as const;
type JsonErrorKind = keyof typeof MESSAGES;

class JiterError extends Error {
  constructor(
    readonly kind: JsonErrorKind,
    readonly index: number,
  ) {
    super(MESSAGES[kind]);
  }
}

/** jiter's default recursion limit. */
const RECURSION_LIMIT = 200;

export function parseJsonLikePydantic(text: string): JsonTextParse {
  const data = Buffer.from(text, 'utf8');
  try {
    return { ok: true, value: new JiterLikeParser(data).parseDocument() };
  } catch (error) {
    if (!(error instanceof JiterError)) throw error;
    return { ok: false, reason: `${MESSAGES[error.kind]} at ${linePosition(data, error.index)}` };
  }
}

/** jiter `LinePosition::find`, quirks included (a `\n` at the index counts as column 0 of the next line). */
function linePosition(data: Buffer, find: number): string {
  let line = 1;
  let lastLineStart = 0;
  let index = 0;
  for (; index < data.length; index++) {
    if (data[index] === NEWLINE) {
      line += 1;
      lastLineStart = index + 1;
    }
    if (index === find) return `line ${line} column ${index + 1 - lastLineStart}`;
  }
  return `line ${line} column ${Math.max(0, index - lastLineStart)}`;
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class JiterLikeParser {
  private index = 0;

  constructor(private readonly data: Buffer) {}

  parseDocument(): unknown {
    const value = this.parseValue(this.peek(), RECURSION_LIMIT);
    if (this.eatWhitespace() !== undefined) throw new JiterError('TrailingCharacters', this.index);
    return value;
  }

  private peek(): number {
    const next = this.eatWhitespace();
    if (next === undefined) throw new JiterError('EofWhileParsingValue', this.index);
    return next;
  }

  private eatWhitespace(): number | undefined {
    for (;;) {
      const next = this.data[this.index];
      if (next === 0x20 || next === 0x0d || next === 0x09 || next === 0x0a) this.index += 1;
      else return next;
    }
  }

  private parseValue(peek: number, depthLeft: number): unknown {
    switch (peek) {
      case 0x74: // t
        this.consumeIdent('rue');
        return true;
      case 0x66: // f
        this.consumeIdent('alse');
        return false;
      case 0x6e: // n
        this.consumeIdent('ull');
        return null;
      case QUOTE:
        return this.parseString();
      case 0x5b: // [
        return this.parseArray(depthLeft);
      case 0x7b: // {
        return this.parseObject(depthLeft);
      default: {
        const isNumberStart = (peek >= 0x30 && peek <= 0x39) || peek === 0x2d || peek === 0x49 || peek === 0x4e;
        // A value that cannot start a number is "expected value" at the value's start.
        if (!isNumberStart) throw new JiterError('ExpectedSomeValue', this.index);
        return this.parseNumber();
      }
    }
  }

  private parseArray(depthLeft: number): unknown[] {
    const items: unknown[] = [];
    let next = this.firstMember(0x5d, 'EofWhileParsingList');
    // jiter counts only non-empty containers, and reports the limit at the first element.
    if (next !== undefined && depthLeft === 0) throw new JiterError('RecursionLimitExceeded', this.index);
    while (next !== undefined) {
      items.push(this.parseValue(next, depthLeft - 1));
      next = this.nextMember(0x5d, 'EofWhileParsingList', 'ExpectedListCommaOrEnd');
    }
    return items;
  }

  private parseObject(depthLeft: number): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    let next = this.firstMember(0x7d, 'EofWhileParsingObject');
    while (next !== undefined) {
      if (next !== QUOTE) throw new JiterError('KeyMustBeAString', this.index);
      const key = this.parseString();
      const colon = this.eatWhitespace();
      if (colon === undefined) throw new JiterError('EofWhileParsingObject', this.index);
      if (colon !== 0x3a) throw new JiterError('ExpectedColon', this.index);
      this.index += 1;
      const peek = this.peek();
      // jiter counts only non-empty objects, and reports the limit at the first member's value.
      if (depthLeft === 0) throw new JiterError('RecursionLimitExceeded', this.index);
      const value = this.parseValue(peek, depthLeft - 1);
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      next = this.nextMember(0x7d, 'EofWhileParsingObject', 'ExpectedObjectCommaOrEnd');
    }
    return object;
  }

  /** Past a container's opening byte: its first member's first byte, or undefined (past the end) when it is empty. */
  private firstMember(close: number, eof: JsonErrorKind): number | undefined {
    this.index += 1;
    const next = this.eatWhitespace();
    if (next === undefined) throw new JiterError(eof, this.index);
    if (next !== close) return next;
    this.index += 1;
    return undefined;
  }

  /** After a member: the next member's first byte, or undefined (past the end) when the container ends. */
  private nextMember(close: number, eof: JsonErrorKind, commaOrEnd: JsonErrorKind): number | undefined {
    const step = this.eatWhitespace();
    if (step === undefined) throw new JiterError(eof, this.index);
    if (step !== close && step !== 0x2c) throw new JiterError(commaOrEnd, this.index);
    this.index += 1;
    if (step === close) return undefined;
    const next = this.eatWhitespace();
    if (next === undefined) throw new JiterError('EofWhileParsingValue', this.index);
    if (next === close) throw new JiterError('TrailingComma', this.index);
    return next;
  }

  /** parse.rs `consume_ident`: the bytes after the first must follow; mismatch vs EOF. */
  private consumeIdent(rest: string): void {
    let index = this.index + 1;
    for (const expected of rest) {
      const actual = this.data[index];
      if (actual === undefined) throw new JiterError('EofWhileParsingValue', index);
      if (actual !== expected.charCodeAt(0)) throw new JiterError('ExpectedSomeIdent', index);
      index += 1;
    }
    this.index = index;
  }

  /** Number grammar and error positions of number_decoder.rs `NumberRange::decode`. */
  private parseNumber(): number {
    const start = this.index;
    let index = start;
    const first = this.data[index];
    if (first === 0x4e) {
      // NaN
      this.consumeIdent('aN');
      return Number.NaN;
    }
    const negative = first === 0x2d;
    if (negative) index += 1;
    const lead = this.data[index];
    if (lead === undefined) throw new JiterError('EofWhileParsingValue', index);
    if (lead === 0x49) {
      // Infinity / -Infinity
      this.index = index;
      this.consumeIdent('nfinity');
      return negative ? -Infinity : Infinity;
    }
    if (lead === 0x30) {
      index += 1;
      const afterZero = this.data[index];
      if (afterZero !== undefined && isDigit(afterZero)) throw new JiterError('InvalidNumber', index);
    } else if (lead >= 0x31 && lead <= 0x39) {
      index += 1;
      while (isDigit(this.data[index])) index += 1;
      if (index - start > 4300) throw new JiterError('NumberOutOfRange', start + 4301);
    } else {
      throw new JiterError('InvalidNumber', index);
    }
    if (this.data[index] === 0x2e) index = this.consumeDecimal(index + 1);
    else if (this.data[index] === 0x65 || this.data[index] === 0x45) index = this.consumeExponent(index + 1);
    this.index = index;
    return Number(this.data.toString('latin1', start, index));
  }

  private consumeDecimal(from: number): number {
    const index = this.consumeDigits(from);
    return this.data[index] === 0x65 || this.data[index] === 0x45 ? this.consumeExponent(index + 1) : index;
  }

  private consumeExponent(from: number): number {
    const sign = this.data[from];
    return this.consumeDigits(sign === 0x2b || sign === 0x2d ? from + 1 : from);
  }

  /** One digit or more: none at all is EOF or an invalid number. */
  private consumeDigits(from: number): number {
    let index = from;
    const first = this.data[index];
    if (first === undefined) throw new JiterError('EofWhileParsingValue', index);
    if (!isDigit(first)) throw new JiterError('InvalidNumber', index);
    index += 1;
    while (isDigit(this.data[index])) index += 1;
    return index;
  }

  /** string_decoder.rs: escapes, control characters, EOF; `this.index` is on the opening quote. */
  private parseString(): string {
    const data = this.data;
    let index = this.index + 1;
    const parts: string[] = [];
    let chunkStart = index;
    for (;;) {
      const byte = data[index];
      if (byte === undefined) throw new JiterError('EofWhileParsingString', index);
      if (byte === QUOTE) {
        parts.push(data.toString('utf8', chunkStart, index));
        this.index = index + 1;
        return parts.join('');
      }
      if (byte < 0x20) throw new JiterError('ControlCharacterWhileParsingString', index);
      if (byte !== BACKSLASH) {
        index += 1;
        continue;
      }
      parts.push(data.toString('utf8', chunkStart, index));
      index += 1;
      const escape = data[index];
      if (escape === undefined) throw new JiterError('EofWhileParsingString', index);
      const simple = SIMPLE_ESCAPES[String.fromCharCode(escape)];
      if (simple !== undefined) {
        parts.push(simple);
      } else if (escape === 0x75) {
        const [char, endIndex] = this.parseUnicodeEscape(index);
        parts.push(char);
        index = endIndex;
      } else {
        throw new JiterError('InvalidEscape', index);
      }
      index += 1;
      chunkStart = index;
    }
  }

  /** `index` is on the `u`; returns the character and the index of the escape's last byte. */
  private parseUnicodeEscape(uIndex: number): [string, number] {
    const data = this.data;
    const [high, afterHigh] = this.parseU4(uIndex);
    if (high >= 0xdc00 && high <= 0xdfff) throw new JiterError('LoneLeadingSurrogateInHexEscape', afterHigh);
    if (high < 0xd800 || high > 0xdbff) return [String.fromCharCode(high), afterHigh];
    const next1 = data[afterHigh + 1];
    const next2 = data[afterHigh + 2];
    if (next1 === BACKSLASH && next2 === 0x75) {
      const [low, afterLow] = this.parseU4(afterHigh + 2);
      if (low < 0xdc00 || low > 0xdfff) throw new JiterError('LoneLeadingSurrogateInHexEscape', afterLow);
      return [String.fromCharCode(high, low), afterLow];
    }
    if (next1 !== undefined && next2 !== undefined) {
      throw new JiterError('UnexpectedEndOfHexEscape', next1 === BACKSLASH ? afterHigh + 2 : afterHigh + 1);
    }
    if (next1 === BACKSLASH || next1 === undefined) throw new JiterError('EofWhileParsingString', data.length);
    throw new JiterError('UnexpectedEndOfHexEscape', afterHigh + 1);
  }

  private parseU4(uIndex: number): [number, number] {
    if (uIndex + 5 > this.data.length) throw new JiterError('EofWhileParsingString', this.data.length);
    let value = 0;
    let index = uIndex;
    for (let i = 0; i < 4; i++) {
      index += 1;
      const digit = parseInt(String.fromCharCode(this.data[index]!), 16);
      if (Number.isNaN(digit)) throw new JiterError('InvalidEscape', index);
      value = value * 16 + digit;
    }
    return [value, index];
  }
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}
