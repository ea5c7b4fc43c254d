/**
 * The raw queries' timestamptz parser (src/platform/db/timestamptz.ts) gives the Date pg's own
 * parser (postgres-date) gives, for every text PostgreSQL can write: generated values of every
 * shape (UTC with 0-6 fraction digits, other zones, BC, years below 100, infinity), and the
 * values a real server writes in a UTC session and in a +05:30 one. The same instant, and the
 * same ISO text (`toISOString`, JSON), which a ReadTimestamp keeps from the digits it read.
 */
import fc from 'fast-check';
import pg from 'pg';
import { Prisma } from '../../src/generated/prisma/client';
import { openDatabase } from '../../src/platform/db/database';
import { parseTimestamptz, ReadTimestamp } from '../../src/platform/db/timestamptz';
import { createScratchDatabase, type TestDatabase } from '../support/databases';

const pgOwn = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

/** What an answer can see of a parsed value: its instant, its ISO text and its JSON. */
const seen = (value: Date | number | null) =>
  value instanceof Date
    ? { time: value.getTime(), iso: Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString(), json: JSON.stringify(value) }
    : value;

const same = (text: string) => ({ text, ours: seen(parseTimestamptz(text)), theirs: seen(pgOwn(text)) });

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** A timestamptz as PostgreSQL writes it (DateStyle ISO), in any of the shapes it can take. */
const timestamptzText = fc
  .record({
    year: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 100, max: 9999 }), fc.integer({ min: 1970, max: 2100 })),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.oneof(
      fc.constant(''),
      fc.integer({ min: 1, max: 6 }).chain((n) => fc.integer({ min: 0, max: 10 ** n - 1 }).map((f) => pad(f, n))),
    ),
    zone: fc.oneof(fc.constant('+00'), fc.constant('+00'), fc.constantFrom('+02', '-07', '+05:30', '-03:30', '+00:00:00', '+14')),
    bc: fc.oneof(fc.constant(''), fc.constant(''), fc.constant(' BC')),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)} ${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}` +
      `${t.fraction ? `.${t.fraction.replace(/0+$/, '') || '0'}` : ''}${t.zone}${t.bc}`,
  );

describe('timestamptz parser of the raw queries', () => {
  it('gives the Date pg gives, on generated texts of every shape', () => {
    fc.assert(
      fc.property(timestamptzText, (text) => {
        const { ours, theirs } = same(text);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 5_000, seed: 20261126 },
    );
  });

  it('keeps pg’s millisecond arithmetic and its special values', () => {
    for (const text of [
      '2026-10-23 08:04:58.957+00',
      '2026-10-23 08:04:58.999999+00',
      '2026-10-23 08:04:58+00',
      '2026-10-23 08:04:58.1+00',
      '0099-01-01 00:00:00+00',
      '10000-01-01 00:00:00+00',
      '2026-10-23 08:04:58+00 BC',
      'infinity',
      '-infinity',
      '2026-10-23 08:04:58.5+00:00',
      '2026-1x-23 08:04:58+00',
      // Never written by PostgreSQL; Date.UTC carries them over, and the text must follow the Date.
      '2026-04-31 10:00:00+00',
      '2026-02-29 10:00:00+00',
      '2024-02-29 10:00:00+00',
      '2026-13-01 10:00:00+00',
      '2026-10-23 24:00:00+00',
      '2026-10-23 23:60:00+00',
      '2026-10-23 23:59:60+00',
      '2026-10-00 10:00:00+00',
    ]) {
      const { ours, theirs } = same(text);
      expect({ text, ours }).toEqual({ text, ours: theirs });
    }
  });

  it('keeps the ISO text of a UTC value, and writes it anew once the Date is changed', () => {
    const read = parseTimestamptz('2026-10-23 08:04:58.957123+00') as Date;
    expect(read).toBeInstanceOf(ReadTimestamp);
    expect(read).toBeInstanceOf(Date);
    expect(read.toISOString()).toBe('2026-10-23T08:04:58.957Z');
    expect(JSON.stringify({ at: read })).toBe('{"at":"2026-10-23T08:04:58.957Z"}');
    expect(read.getTime()).toBe(Date.UTC(2026, 9, 23, 8, 4, 58, 957));
    read.setTime(0);
    expect(read.toISOString()).toBe('1970-01-01T00:00:00.000Z');
    read.setUTCFullYear(2030);
    expect(read.toISOString()).toBe('2030-01-01T00:00:00.000Z');
    // Another zone is pg's own Date: no text kept.
    expect(parseTimestamptz('2026-10-23 08:04:58+02')).not.toBeInstanceOf(ReadTimestamp);
  });

  describe('on PostgreSQL', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createScratchDatabase('postgres');
    });
    afterAll(() => database.drop());

    const values = `SELECT ts, ts::text AS text FROM (VALUES
        ('2026-10-23 08:04:58.957123+00'::timestamptz), ('1999-12-31 23:59:59.999999+00'), ('2026-03-29 01:30:00+01'),
        ('0050-06-01 12:00:00+00'), ('0044-03-15 12:00:00+00 BC'), ('infinity'), ('-infinity'), (now())
      ) AS v(ts)
      UNION ALL SELECT ts, ts::text FROM generate_series('2020-01-01'::timestamptz, '2020-01-02', '7 minutes 13.123457 seconds') AS ts`;

    it.each([
      ['a UTC session', ''],
      ['a +05:30 session', '?options=-c%20TimeZone%3DAsia%2FKolkata'],
    ])('reads what the server writes in %s as pg does', async (_name, parameters) => {
      const db = await openDatabase({ url: `${database.url!}${parameters}`, poolMax: 1 });
      try {
        const rows = await db.prisma.$queryRaw<{ ts: Date | number; text: string }[]>(Prisma.raw(values));
        expect(rows.length).toBeGreaterThan(200);
        for (const row of rows) {
          expect({ text: row.text, ts: seen(row.ts) }).toEqual({ text: row.text, ts: seen(pgOwn(row.text)) });
        }
        if (!parameters) {
          expect(rows.some((row) => row.text.endsWith('+00'))).toBe(true);
          expect(rows.filter((row) => row.ts instanceof ReadTimestamp).length).toBeGreaterThan(200);
        } else expect(rows.every((row) => !/\d[+-]00$/.test(row.text) || row.text.includes('infinity'))).toBe(true);
      } finally {
        await db.close();
      }
    });
  });
});
