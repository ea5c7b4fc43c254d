/**
 * The raw queries' timestamptz parser (src/platform/db/timestamptz.ts) gives the Date pg's own
 * parser (postgres-date) gives, for every text PostgreSQL can write: generated values of every
 * shape (UTC with 0-6 fraction digits, other zones, BC, years below 100, infinity), and the
 * values a real server writes in a UTC session and in a +05:30 one.
 */
import fc from 'fast-check';
import pg from 'pg';
import { Prisma } from '../../src/generated/prisma/client';
import { openDatabase } from '../../src/platform/db/database';
import { parseTimestamptz } from '../../src/platform/db/timestamptz';
import { createScratchDatabase, type TestDatabase } from '../support/databases';

const pgOwn = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number | null;

const same = (text: string) => {
  const ours = parseTimestamptz(text);
  const theirs = pgOwn(text);
  return { text, ours: ours instanceof Date ? ours.getTime() : ours, theirs: theirs instanceof Date ? theirs.getTime() : theirs };
};

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
        expect(ours).toBe(theirs);
      }),
      { numRuns: 5_000, seed: 20261126 },
    );
  });

  it('keeps pg’s millisecond arithmetic and its special values', () => {
    for (const text of [
      '2026-10-23 08:04:58.957+00', // 1000 * 0.957 is 956.99…: 956, as pg
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
    ]) {
      const { ours, theirs } = same(text);
      expect({ text, ours }).toEqual({ text, ours: theirs });
    }
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
          const theirs = pgOwn(row.text);
          expect({ text: row.text, ts: row.ts instanceof Date ? row.ts.getTime() : row.ts }).toEqual({
            text: row.text,
            ts: theirs instanceof Date ? theirs.getTime() : theirs,
          });
        }
        if (!parameters) expect(rows.some((row) => row.text.endsWith('+00'))).toBe(true);
        else expect(rows.every((row) => !/\d[+-]00$/.test(row.text) || row.text.includes('infinity'))).toBe(true);
      } finally {
        await db.close();
      }
    });
  });
});
