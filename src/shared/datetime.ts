/**
 * Pydantic v2's lax `datetime` validation of a string, ported from:
 * - pydantic-core `src/validators/datetime.rs`: parse as a datetime; if that fails, parse as a
 *   date (midnight); if that fails too, the error is `datetime_from_date_parsing` carrying the
 *   *date* parser's reason (`datetime_from_date`).
 * - speedate 0.17 (`src/datetime.rs`, `src/date.rs`, `src/time.rs`, `src/numbers.rs`,
 *   `src/util.rs`) for the grammar and the reasons (`ParseError` doc comments, which
 *   `get_documentation()` returns).
 * Config as pydantic uses it: fractional seconds beyond 6 digits truncated, timestamps in
 * seconds or milliseconds inferred (above 2e10 means milliseconds).
 */

export type DateTimeParse =
  { ok: true; value: Date } | { ok: false; type: 'datetime_from_date_parsing' | 'datetime_parsing'; reason: string };

/** speedate `ParseError` variants used here → their documentation strings (the reasons). */
const REASON = {
  TooShort: 'input is too short',
  ExtraCharacters: 'unexpected extra characters at the end of the input',
  InvalidCharDateTimeSep: 'invalid datetime separator, expected `T`, `t`, `_` or space',
  InvalidCharDateSep: 'invalid date separator, expected `-`',
  DateNotExact: 'Timestamp is not an exact date',
  InvalidCharYear: 'invalid character in year',
  InvalidCharMonth: 'invalid character in month',
  InvalidCharDay: 'invalid character in day',
  InvalidCharTimeSep: 'invalid time separator, expected `:`',
  InvalidCharHour: 'invalid character in hour',
  InvalidCharMinute: 'invalid character in minute',
  InvalidCharSecond: 'invalid character in second',
  InvalidCharTzSign: 'invalid timezone sign',
  InvalidCharTzHour: 'invalid timezone hour',
  InvalidCharTzMinute: 'invalid timezone minute',
  OutOfRangeTzMinute: 'timezone minute value is outside expected range of 0-59',
  OutOfRangeTz: 'timezone offset must be less than 24 hours',
  OutOfRangeMonth: 'month value is outside expected range of 1-12',
  OutOfRangeDay: 'day value is outside expected range',
  OutOfRangeHour: 'hour value is outside expected range of 0-23',
  OutOfRangeMinute: 'minute value is outside expected range of 0-59',
  OutOfRangeSecond: 'second value is outside expected range of 0-59',
  SecondFractionMissing: 'second fraction digits missing after `.`',
  DateTooSmall: 'dates before 0000 are not supported as unix timestamps',
  DateTooLarge: 'dates after 9999 are not supported as unix timestamps',
  TimeTooLarge: 'numeric times may not exceed 86,399 seconds',
} as const;
type Reason = (typeof REASON)[keyof typeof REASON];

class SpeedateError extends Error {
  constructor(readonly reason: Reason) {
    super(reason);
  }
}
function fail(reason: Reason): never {
  throw new SpeedateError(reason);
}

interface CivilDate {
  year: number;
  month: number;
  day: number;
}
interface CivilDateTime extends CivilDate {
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
  /** seconds east of UTC; null = naive (we read it as UTC) */
  tzOffset: number | null;
}

export function parseDateTimeLikePydantic(input: string): DateTimeParse {
  const bytes = Buffer.from(input, 'utf8');
  let parsed: CivilDateTime;
  try {
    parsed = parseDateTime(bytes);
  } catch (datetimeError) {
    if (!(datetimeError instanceof SpeedateError)) throw datetimeError;
    try {
      parsed = { ...parseDate(bytes), hour: 0, minute: 0, second: 0, microsecond: 0, tzOffset: null };
    } catch (dateError) {
      if (!(dateError instanceof SpeedateError)) throw dateError;
      return { ok: false, type: 'datetime_from_date_parsing', reason: dateError.reason };
    }
  }
  // speedate allows year 0; Python's datetime does not (pydantic reports the Python error).
  if (parsed.year === 0) return { ok: false, type: 'datetime_parsing', reason: 'year 0 is out of range' };
  return { ok: true, value: toJsDate(parsed) };
}

function toJsDate(dt: CivilDateTime): Date {
  const date = new Date(0);
  date.setUTCFullYear(dt.year, dt.month - 1, dt.day);
  date.setUTCHours(dt.hour, dt.minute, dt.second, Math.floor(dt.microsecond / 1000));
  if (dt.tzOffset !== null) date.setTime(date.getTime() - dt.tzOffset * 1000);
  return date;
}

// --- speedate DateTime::parse_bytes_with_config --------------------------------------------

function parseDateTime(bytes: Buffer): CivilDateTime {
  try {
    return parseDateTimeRfc3339(bytes);
  } catch (rfcError) {
    const number = floatParseBytes(bytes);
    if (number.kind === 'int') return dateTimeFromTimestamp(number.value, 0);
    if (number.kind === 'float') {
      const inMilliseconds = Math.abs(number.value) > MS_WATERSHED;
      const normalized = inMilliseconds ? number.value / 1000 : number.value;
      const seconds = Math.floor(normalized);
      const microseconds = Math.round((normalized - seconds) * 1_000_000);
      return dateTimeFromTimestamp(BigInt(seconds), microseconds);
    }
    throw rfcError;
  }
}

function parseDateTimeRfc3339(bytes: Buffer): CivilDateTime {
  const date = parseDatePartial(bytes);
  const sep = bytes[10];
  if (sep !== T && sep !== LOWER_T && sep !== SPACE && sep !== UNDERSCORE) fail(REASON.InvalidCharDateTimeSep);
  return { ...date, ...parseTimeWithOffset(bytes, 11) };
}

// --- speedate Date::parse_bytes_with_config -------------------------------------------------

function parseDate(bytes: Buffer): CivilDate {
  try {
    const date = parseDatePartial(bytes);
    if (bytes.length > 10) fail(REASON.ExtraCharacters);
    return date;
  } catch (rfcError) {
    const int = intParseBytes(bytes);
    if (int === null) throw rfcError;
    const { seconds, microseconds } = timestampWatershed(int);
    const { date, remainingSeconds } = dateFromTimestamp(seconds);
    if (remainingSeconds !== 0 || microseconds !== 0) fail(REASON.DateNotExact);
    return date;
  }
}

function parseDatePartial(bytes: Buffer): CivilDate {
  if (bytes.length < 10) fail(REASON.TooShort);
  const year =
    digitAt(bytes, 0, REASON.InvalidCharYear) * 1000 +
    digitAt(bytes, 1, REASON.InvalidCharYear) * 100 +
    digitAt(bytes, 2, REASON.InvalidCharYear) * 10 +
    digitAt(bytes, 3, REASON.InvalidCharYear);
  if (bytes[4] !== MINUS) fail(REASON.InvalidCharDateSep);
  const month = digitAt(bytes, 5, REASON.InvalidCharMonth) * 10 + digitAt(bytes, 6, REASON.InvalidCharMonth);
  if (bytes[7] !== MINUS) fail(REASON.InvalidCharDateSep);
  const day = digitAt(bytes, 8, REASON.InvalidCharDay) * 10 + digitAt(bytes, 9, REASON.InvalidCharDay);
  if (month < 1 || month > 12) fail(REASON.OutOfRangeMonth);
  if (day < 1 || day > daysInMonth(year, month)) fail(REASON.OutOfRangeDay);
  return { year, month, day };
}

// --- speedate Time::parse_bytes_offset ----------------------------------------------------

function parseTimeWithOffset(bytes: Buffer, offset: number): Omit<CivilDateTime, keyof CivilDate> {
  if (bytes.length - offset < 5) fail(REASON.TooShort);
  const hour = digitAt(bytes, offset, REASON.InvalidCharHour) * 10 + digitAt(bytes, offset + 1, REASON.InvalidCharHour);
  if (bytes[offset + 2] !== COLON) fail(REASON.InvalidCharTimeSep);
  const minute = digitAt(bytes, offset + 3, REASON.InvalidCharMinute) * 10 + digitAt(bytes, offset + 4, REASON.InvalidCharMinute);
  if (hour > 23) fail(REASON.OutOfRangeHour);
  if (minute > 59) fail(REASON.OutOfRangeMinute);

  let length = 5;
  let second = 0;
  let microsecond = 0;
  if (bytes[offset + 5] === COLON) {
    second = digitAt(bytes, offset + 6, REASON.InvalidCharSecond) * 10 + digitAt(bytes, offset + 7, REASON.InvalidCharSecond);
    if (second > 59) fail(REASON.OutOfRangeSecond);
    length = 8;
    const fractionSep = bytes[offset + 8];
    if (fractionSep === DOT || fractionSep === COMMA) {
      length = 9;
      let digits = 0;
      // Digits past the sixth are read and dropped ("truncate" overflow behaviour).
      while (isDigit(bytes[offset + length + digits])) {
        if (digits < 6) microsecond = microsecond * 10 + (bytes[offset + length + digits]! - ZERO);
        digits += 1;
      }
      if (digits === 0) fail(REASON.SecondFractionMissing);
      if (digits < 6) microsecond *= 10 ** (6 - digits);
      length += digits;
    }
  }

  let position = offset + length;
  let tzOffset: number | null = null;
  const next = bytes[position];
  if (next !== undefined) {
    position += 1;
    if (next === UPPER_Z || next === LOWER_Z) {
      tzOffset = 0;
    } else {
      let sign: number;
      if (next === PLUS) sign = 1;
      else if (next === MINUS) sign = -1;
      else if (next === 226) {
        // U+2212 MINUS SIGN (bytes e2 88 92), allowed by ISO 8601 for negative offsets.
        if (bytes[position] !== 136 || bytes[position + 1] !== 146) fail(REASON.InvalidCharTzSign);
        position += 2;
        sign = -1;
      } else fail(REASON.InvalidCharTzSign);
      const h1 = digitAt(bytes, position, REASON.InvalidCharTzHour);
      const h2 = digitAt(bytes, position + 1, REASON.InvalidCharTzHour);
      let m1: number;
      const afterHour = bytes[position + 2];
      if (afterHour === COLON) {
        position += 3;
        m1 = digitAt(bytes, position, REASON.InvalidCharTzMinute);
      } else if (isDigit(afterHour)) {
        position += 2;
        m1 = afterHour! - ZERO;
      } else fail(REASON.InvalidCharTzMinute);
      const m2 = digitAt(bytes, position + 1, REASON.InvalidCharTzMinute);
      const minuteSeconds = m1 * 600 + m2 * 60;
      if (minuteSeconds >= 3600) fail(REASON.OutOfRangeTzMinute);
      const offsetSeconds = sign * (h1 * 36000 + h2 * 3600 + minuteSeconds);
      if (Math.abs(offsetSeconds) >= 24 * 3600) fail(REASON.OutOfRangeTz);
      tzOffset = offsetSeconds;
      position += 2;
    }
  }
  if (bytes.length > position) fail(REASON.ExtraCharacters);
  return { hour, minute, second, microsecond, tzOffset };
}

// --- timestamps (speedate util.rs / date.rs / datetime.rs) ----------------------------------

/** Above this a timestamp is read as milliseconds (20 August 1970 in ms; 2603 in seconds). */
const MS_WATERSHED = 20_000_000_000;
const UNIX_9999 = 253_402_300_799n;
const UNIX_0000 = -62_167_219_200n;

function timestampWatershed(timestamp: bigint): { seconds: bigint; microseconds: number } {
  const abs = timestamp < 0n ? -timestamp : timestamp;
  if (abs <= BigInt(MS_WATERSHED)) return { seconds: timestamp, microseconds: 0 };
  let seconds = timestamp / 1000n; // BigInt division truncates toward zero, like Rust
  let microseconds = Number(timestamp % 1000n) * 1000;
  if (microseconds < 0) {
    seconds -= 1n;
    microseconds += 1_000_000;
  }
  return { seconds, microseconds };
}

function dateTimeFromTimestamp(timestamp: bigint, extraMicroseconds: number): CivilDateTime {
  const watershed = timestampWatershed(timestamp);
  let seconds = watershed.seconds;
  let microsecond = watershed.microseconds + extraMicroseconds;
  if (microsecond >= 1_000_000) {
    seconds += BigInt(Math.floor(microsecond / 1_000_000));
    microsecond %= 1_000_000;
  }
  const { date, remainingSeconds } = dateFromTimestamp(seconds);
  return {
    ...date,
    hour: Math.floor(remainingSeconds / 3600),
    minute: Math.floor((remainingSeconds % 3600) / 60),
    second: remainingSeconds % 60,
    microsecond,
    tzOffset: 0,
  };
}

function dateFromTimestamp(seconds: bigint): { date: CivilDate; remainingSeconds: number } {
  if (seconds < UNIX_0000) fail(REASON.DateTooSmall);
  if (seconds > UNIX_9999) fail(REASON.DateTooLarge);
  const asNumber = Number(seconds);
  const day = new Date(Math.floor(asNumber / 86400) * 86400 * 1000);
  return {
    date: { year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() },
    remainingSeconds: ((asNumber % 86400) + 86400) % 86400,
  };
}

/** speedate `int_parse_bytes`: optional sign then ASCII digits, i64 without overflow. */
function intParseBytes(bytes: Buffer): bigint | null {
  const text = bytes.toString('latin1');
  if (!/^[+-]?[0-9]+$/.test(text)) return null;
  const value = BigInt(text);
  const magnitude = value < 0n ? -value : value;
  return magnitude > I64_MAX ? null : value;
}
const I64_MAX = 9_223_372_036_854_775_807n;

type NumberParse = { kind: 'int'; value: bigint } | { kind: 'float'; value: number } | { kind: 'none' };

/**
 * speedate `float_parse_bytes`: an integer, or — only when integer parsing stopped at a `.` —
 * a float in lexical's standard format.
 */
function floatParseBytes(bytes: Buffer): NumberParse {
  const int = intParseBytes(bytes);
  if (int !== null) return { kind: 'int', value: int };
  const text = bytes.toString('latin1');
  const stopChar = /^[+-]?([0-9]*)(.?)/.exec(text)!;
  const firstNonDigit = text.replace(/^[+-]?/, '')[stopChar[1]!.length];
  if (firstNonDigit !== '.') return { kind: 'none' };
  if (!/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(text)) return { kind: 'none' };
  return { kind: 'float', value: Number(text) };
}

// --- helpers --------------------------------------------------------------------------------

const ZERO = 0x30;
const MINUS = 0x2d;
const PLUS = 0x2b;
const COLON = 0x3a;
const DOT = 0x2e;
const COMMA = 0x2c;
const SPACE = 0x20;
const UNDERSCORE = 0x5f;
const T = 0x54;
const LOWER_T = 0x74;
const UPPER_Z = 0x5a;
const LOWER_Z = 0x7a;

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= ZERO && byte <= ZERO + 9;
}

function digitAt(bytes: Buffer, index: number, reason: Reason): number {
  const byte = bytes[index];
  if (!isDigit(byte)) fail(reason);
  return byte! - ZERO;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 100 === 0 ? year % 400 === 0 : year % 4 === 0;
}
