/**
 * The `pg` pool's parser for timestamptz (the raw queries of direct-raw-queries.ts): pg's own,
 * postgres-date, runs three regular expressions and several parseInt per value, 200 per page of
 * 100 reports. In a session whose TimeZone is UTC (the server's default in the official images)
 * PostgreSQL writes a timestamptz in one fixed shape, `2026-10-23 08:04:58.955123+00`, read here by
 * position; anything else (another zone, BC, a year outside 100-9999, infinity) goes to pg's own
 * parser. The Date is postgres-date's, to the millisecond (test/platform/timestamptz.test.ts).
 *
 * Such a value is a `ReadTimestamp`, which keeps the ISO text written from the digits it was read
 * from: every answer writes its timestamps as that text (the DateTimeISO scalar, the REST body,
 * cursors, ETags), and V8's `toISOString` formats the Date anew each time, ~15 times slower.
 */
import pg from 'pg';

/** pg's own parser (postgres-date). */
const postgresDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

/** The number written by the digits from `start` to `end` (exclusive), or -1 if one is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i += 1) {
    const digit = text.charCodeAt(i) - 48; // '0'
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** A Date with its `toISOString` text kept; if it is changed (setTime…), it formats itself again. */
export class ReadTimestamp extends Date {
  readonly #time: number;
  readonly #iso: string;

  constructor(time: number, iso: string) {
    super(time);
    this.#time = time;
    this.#iso = iso;
  }

  override toISOString(): string {
    return this.getTime() === this.#time ? this.#iso : super.toISOString();
  }
}

const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** `YYYY-MM-DD HH:MM:SS[.f{1,6}]+00`, or undefined for any other shape. */
function parseUtcTimestamp(text: string): Date | undefined {
  const length = text.length;
  if (length < 22 || length > 29) return undefined;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':') return undefined;
  if (text[length - 3] !== '+' || text[length - 2] !== '0' || text[length - 1] !== '0') return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let milliseconds = 0;
  if (length > 22) {
    if (text[19] !== '.' || length === 23 || digits(text, 20, length - 3) < 0) return undefined;
    // As postgres-date computes it. A Date keeps whole milliseconds: for every 6-digit fraction,
    // its first three digits.
    milliseconds = 1000 * parseFloat(text.slice(19, length - 3));
  }
  const time = Date.UTC(year, month - 1, day, hour, minute, second, milliseconds);
  // Out of range, Date.UTC carries over (month 13 is January): the digits are not the Date's.
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return new Date(time);
  // The Date keeps whole milliseconds (MakeTime truncates), as its text must.
  const date = new ReadTimestamp(time, `${text.slice(0, 10)}T${text.slice(11, 19)}.${pad3(Math.trunc(milliseconds))}Z`);
  // The 31st of a 30-day month is the next month's 1st.
  return day > 28 && date.getUTCDate() !== day ? new Date(time) : date;
}

export function parseTimestamptz(text: string): Date | number | null {
  return parseUtcTimestamp(text) ?? postgresDate(text);
}
