/**
 * Statements kept prepared per connection (src/platform/db/prepared-statements.ts), on a real
 * PostgreSQL server through a pool of one connection, so that `pg_prepared_statements` (which
 * shows the asking session's own) shows what the pool's connection holds: the marked statements
 * and only them, none behind `?pgbouncer=true`, and a connection that lost them (a pooler between,
 * a migration under a kept plan) still answering, with naming off from then on.
 */
import { randomUUID } from 'node:crypto';
import { Prisma } from '../../src/generated/prisma/client';
import { openDatabase, type Database } from '../../src/platform/db/database';
import { applyMigrations } from '../../src/platform/db/migrations/apply';
import {
  FIXED_TEXT_NAMES_CAPACITY,
  NAMES_PER_OWNER,
  prepared,
  STATEMENT_NAMES_CAPACITY,
  statementNameOf,
  StatementNames,
} from '../../src/platform/db/prepared-statements';
import { onlyIndexedScope } from '../../src/features/reports/report-query';
import { findReports } from '../../src/features/reports/reports.service';
import { findUsers } from '../../src/features/users/users.service';
import { createScratchDatabase, type TestDatabase } from '../support/databases';

let scratch: TestDatabase;
const opened: Database[] = [];

beforeAll(async () => {
  scratch = await createScratchDatabase('postgres');
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await scratch.drop();
});

async function openOneConnection(url = scratch.url!, poolMax = 1): Promise<Database> {
  const db = await openDatabase({ url, poolMax });
  opened.push(db);
  return db;
}

/** What the pool's only connection holds prepared (asked unnamed, so the asking adds nothing). */
const preparedOn = async (db: Database) =>
  db.prisma.$queryRaw<{ name: string; statement: string }[]>(Prisma.sql`SELECT name, statement FROM pg_prepared_statements ORDER BY name`);

const marked = (n: number) => prepared(Prisma.sql`SELECT ${n}::int AS n`);

describe('prepared statements on PostgreSQL', () => {
  it('keeps a marked statement prepared under one name, run again by it; an unmarked one is parsed each time', async () => {
    const db = await openOneConnection();
    expect(await db.prisma.$queryRaw(marked(1))).toEqual([{ n: 1 }]);
    expect(await db.prisma.$queryRaw(marked(2))).toEqual([{ n: 2 }]);
    expect(await db.prisma.$queryRaw(Prisma.sql`SELECT ${3}::int + 0 AS m`)).toEqual([{ m: 3 }]);
    expect(await preparedOn(db)).toEqual([{ name: statementNameOf('SELECT $1::int AS n'), statement: 'SELECT $1::int AS n' }]);
  });

  it('prepares nothing behind a transaction-mode pooler (?pgbouncer=true)', async () => {
    const db = await openOneConnection(`${scratch.url!}?pgbouncer=true`);
    expect(await db.prisma.$queryRaw(marked(4))).toEqual([{ n: 4 }]);
    expect(await preparedOn(db)).toEqual([]);
  });

  it('answers when the connection lost what it prepared (a pooler gave another server connection), then names nothing more', async () => {
    const db = await openOneConnection();
    expect(await db.prisma.$queryRaw(marked(5))).toEqual([{ n: 5 }]);
    // What a transaction-mode pooler does to a named statement: the next server connection lacks it.
    await db.prisma.$queryRaw(Prisma.sql`DEALLOCATE ALL`);
    expect(await db.prisma.$queryRaw(marked(6))).toEqual([{ n: 6 }]);
    expect(await db.prisma.$queryRaw(prepared(Prisma.sql`SELECT ${7}::int AS other`))).toEqual([{ other: 7 }]);
    expect(await preparedOn(db)).toEqual([]);
  });

  it('answers every statement that was sent named when the connections lost them, not only the first to find out', async () => {
    const db = await openOneConnection(scratch.url!, 2);
    // Both connections busy at once: each prepares the statement, then each loses it.
    const slow = (n: number) => prepared(Prisma.sql`SELECT ${n}::int AS n FROM pg_sleep(0.2)`);
    expect(await Promise.all([db.prisma.$queryRaw(slow(1)), db.prisma.$queryRaw(slow(2))])).toEqual([[{ n: 1 }], [{ n: 2 }]]);
    await Promise.all([0, 1].map(() => db.prisma.$queryRaw(Prisma.sql`SELECT pg_sleep(0.2); DEALLOCATE ALL`)));
    expect(await Promise.all([db.prisma.$queryRaw(slow(3)), db.prisma.$queryRaw(slow(4))])).toEqual([[{ n: 3 }], [{ n: 4 }]]);
  });

  it('answers when a migration changed a table under a kept plan (cached plan must not change result type)', async () => {
    const db = await openOneConnection();
    await db.prisma.$queryRaw(Prisma.sql`CREATE TABLE plan_kept (a int)`);
    await db.prisma.$queryRaw(Prisma.sql`INSERT INTO plan_kept VALUES (1)`);
    const everything = () => db.prisma.$queryRaw(prepared(Prisma.sql`SELECT * FROM plan_kept WHERE a = ${1}`));
    expect(await everything()).toEqual([{ a: 1 }]);
    await db.prisma.$queryRaw(Prisma.sql`ALTER TABLE plan_kept ADD COLUMN b int`);
    expect(await everything()).toEqual([{ a: 1, b: null }]);
  });

  it('names texts by their digest, within bounds: per organization, for all requests together, and for the code apart', () => {
    const names = new StatementNames(true);
    const organizations = Array.from({ length: STATEMENT_NAMES_CAPACITY / NAMES_PER_OWNER + 1 }, (_, i) => `org-${i}`);
    // One organization names NAMES_PER_OWNER texts of its requests' shapes, then no more.
    const [first, ...others] = organizations;
    for (let i = 0; i < NAMES_PER_OWNER; i++)
      expect(names.nameOf(`SELECT ${first} ${i}`, first)).toBe(statementNameOf(`SELECT ${first} ${i}`));
    expect(names.nameOf(`SELECT ${first} more`, first)).toBeUndefined();
    // A text already named is run by its name whoever asks.
    expect(names.nameOf(`SELECT ${first} 0`, others[0])).toBe(statementNameOf(`SELECT ${first} 0`));
    // The others share what is left, up to STATEMENT_NAMES_CAPACITY in all.
    let named = NAMES_PER_OWNER;
    for (const organization of others) {
      for (let i = 0; i < NAMES_PER_OWNER; i++) if (names.nameOf(`SELECT ${organization} ${i}`, organization)) named += 1;
    }
    expect(named).toBe(STATEMENT_NAMES_CAPACITY);
    // The code's own texts are not crowded out by requests, and are bounded too.
    for (let i = 0; i < FIXED_TEXT_NAMES_CAPACITY; i++) expect(names.nameOf(`SELECT ${i}`)).toBe(statementNameOf(`SELECT ${i}`));
    expect(names.nameOf('SELECT 0')).toBe(statementNameOf('SELECT 0'));
    // PostgreSQL's identifiers are at most 63 bytes; distinct texts, distinct names.
    expect(statementNameOf('SELECT 0')).toMatch(/^vr_[A-Za-z0-9_-]{27}$/);
    expect(statementNameOf('SELECT 0')).not.toBe(statementNameOf('SELECT 1'));
    expect(names.nameOf('SELECT one more')).toBeUndefined();
    expect(new StatementNames(false).nameOf('SELECT 0')).toBeUndefined();
  });
});

describe('lookups by key', () => {
  // src/platform/db/key-condition.ts: `= ANY($n)` is planned again on every execution.
  it('keep one generic plan for a single key (a fetch-one), and still load several keys in one statement', async () => {
    const db = await openOneConnection();
    await db.withSession((session) => applyMigrations(session));
    const organization = randomUUID();
    const [one, two] = [randomUUID(), randomUUID()];
    for (let i = 0; i < 8; i++) {
      expect(await findReports(db.prisma, organization, [one])).toEqual([]);
      expect(await findUsers(db.prisma, organization, [one])).toEqual([]);
    }
    expect(await findReports(db.prisma, organization, [one, two])).toEqual([]);
    const plans = await db.prisma.$queryRaw<{ statement: string; generic_plans: bigint; custom_plans: bigint }[]>(
      Prisma.sql`SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`,
    );
    const lookups = plans.filter((p) => /FROM (reports r|users u)/.test(p.statement));
    const single = lookups.filter((p) => !p.statement.includes('ANY('));
    expect(single).toHaveLength(2);
    // PostgreSQL plans the first five executions with their values, then keeps the generic plan.
    for (const plan of single) expect(Number(plan.generic_plans)).toBeGreaterThanOrEqual(3);
    expect(lookups.filter((p) => p.statement.includes('ANY('))).toHaveLength(1);
  });
});

describe('which report lists may keep a plan', () => {
  it('only those scoped by the organization and valid alone: any filter whose best plan depends on its value runs planned with it', () => {
    expect(onlyIndexedScope({})).toBe(true);
    expect(onlyIndexedScope({ valid: false, vin: null, type: undefined })).toBe(true);
    expect(onlyIndexedScope({ type: 'remote' as never })).toBe(false);
    expect(onlyIndexedScope({ search: '' })).toBe(false);
    expect(onlyIndexedScope({ created_at__gte: new Date(0) as never })).toBe(false);
    expect(onlyIndexedScope({ state__contains: {} as never })).toBe(false);
  });
});
