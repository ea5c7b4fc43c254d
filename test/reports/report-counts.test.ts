/**
 * Exact totals from `report_key_counts` (organization, valid, type, dealership, profile), kept by
 * statement-level triggers on `reports`: the counters must equal `count(*)` for every combination
 * of the counted filters after every kind of write (leads through the API, bulk inserts, the admin
 * import, updates moving any key column, foreign keys setting NULL or cascading, upserts, deletes,
 * rollbacks, a truncate), on PGlite and PostgreSQL, and under concurrent writers on PostgreSQL;
 * lists filtered only by counted columns must read the counters, any other filter must count.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { PrismaClient } from '../../src/generated/prisma/client';
import { importReports } from '../../src/admin/import-reports';
import { countedByKey } from '../../src/features/reports/report-key-counts';
import { groupedReportCountSql, reportCountSql } from '../../src/features/reports/report-query';
import type { ReportFilterArgs } from '../../src/features/reports/report-filters.args';
import { applyMigrations, readMigrations } from '../../src/platform/db/migrations/apply';
import { buildDemoDataset } from '../../src/seed/dataset';
import { seedDatabase } from '../../src/seed/seed-database';
import { createScratchDatabase, DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';

const NIL = '00000000-0000-0000-0000-000000000000';
const TYPES = ['remote', 'inspection', 'rental'] as const;

/** Deterministic choices, so that a failure replays the same writes. */
function chooser(seed: number) {
  let state = seed >>> 0;
  // mulberry32
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]! };
}

/** The counters as they must be: the reports grouped by key, and no row for a key without reports. */
async function expectCountersMatchReports(prisma: PrismaClient): Promise<void> {
  const counters = await prisma.$queryRawUnsafe(`
    SELECT organization_id, valid, type::text AS type, dealership_id, profile_id, total::int AS total
    FROM report_key_counts ORDER BY 1, 2, 3, 4, 5`);
  const counted = await prisma.$queryRawUnsafe(`
    SELECT organization_id, valid, type::text AS type, COALESCE(dealership_id, '${NIL}') AS dealership_id,
      COALESCE(profile_id, '${NIL}') AS profile_id, count(*)::int AS total
    FROM reports GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`);
  expect(counters).toEqual(counted);
}

async function totalOf(prisma: PrismaClient, organizationId: string, filters: Partial<ReportFilterArgs>): Promise<number> {
  const [row] = await prisma.$queryRaw<{ total: number }[]>(reportCountSql(organizationId, filters));
  return Number(row!.total);
}

/** count(*) through the Prisma client, independently of report-query.ts. */
function countMatches(prisma: PrismaClient, organizationId: string, f: Partial<ReportFilterArgs>): Promise<number> {
  return prisma.report.count({
    where: {
      AND: [
        { organization_id: organizationId, valid: f.valid ?? true },
        f.organization_id ? { organization_id: f.organization_id } : {},
        f.type ? { type: f.type } : {},
        f.dealership_id ? { dealership_id: f.dealership_id } : {},
        f.profile_id ? { profile_id: f.profile_id } : {},
      ],
    },
  });
}

/** The ids with the most reports in the organization (what users filter by), for one column. */
async function busiest(prisma: PrismaClient, organizationId: string, column: 'dealership_id' | 'profile_id'): Promise<string[]> {
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    `SELECT ${column} AS id FROM reports WHERE organization_id = $1::uuid AND ${column} IS NOT NULL
     GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 2`,
    organizationId,
  );
  return rows.map((r) => r.id);
}

describe.each(DATABASE_KINDS)('exact totals from report_key_counts on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 160 });
  });
  afterAll(() => server.close());

  const organizations = () => server.dataset.organizations.map((o) => o.id);
  const dealershipsOf = (organizationId: string) => server.dataset.dealerships.filter((d) => d.organization_id === organizationId);
  const usersOf = (organizationId: string) => server.dataset.users.filter((u) => u.organization_id === organizationId);
  const entityOf = (organizationId: string) => server.dataset.entities.find((e) => e.organization_id === organizationId)!.id;

  /**
   * The whole counter table against GROUP BY count(*); then, for every organization, the total of
   * every combination of the counted filters (valid × type × dealership × profile × organization,
   * each absent or set, with another organization's ids) and the grouped totals of nested lists.
   */
  async function expectTotalsExact(): Promise<void> {
    const prisma = server.db.prisma;
    await expectCountersMatchReports(prisma);
    for (const organizationId of organizations()) {
      const other = organizations().find((id) => id !== organizationId)!;
      const dealerships = [undefined, ...(await busiest(prisma, organizationId, 'dealership_id')), dealershipsOf(other)[0]!.id];
      const profiles = [undefined, ...(await busiest(prisma, organizationId, 'profile_id')), usersOf(other)[0]!.id];
      for (const valid of [true, false])
        for (const type of [undefined, 'remote', 'inspection'] as const)
          for (const dealership_id of dealerships)
            for (const profile_id of profiles)
              for (const organization_id of [undefined, other]) {
                const filters = { valid, type, dealership_id, profile_id, organization_id };
                const [total, counted] = await Promise.all([
                  totalOf(prisma, organizationId, filters),
                  countMatches(prisma, organizationId, filters),
                ]);
                expect({ organizationId, filters, total }).toEqual({ organizationId, filters, total: counted });
              }
      const groups = {
        dealership_id: dealershipsOf(organizationId).map((d) => d.id),
        profile_id: usersOf(organizationId).map((u) => u.id),
      };
      for (const column of ['dealership_id', 'profile_id'] as const) {
        for (const filters of [{ valid: true }, { valid: false, type: 'remote' as const }]) {
          const rows = await prisma.$queryRaw<{ group_id: string; total: number }[]>(
            groupedReportCountSql(column, groups[column], organizationId, filters),
          );
          const totals = Object.fromEntries(rows.map((r) => [r.group_id, Number(r.total)]));
          for (const id of groups[column]) {
            const counted = await countMatches(prisma, organizationId, { ...filters, [column]: id });
            expect({ column, id, filters, total: totals[id] ?? 0 }).toEqual({ column, id, filters, total: counted });
          }
        }
      }
    }
  }

  async function restTotal(query: string, keyIndex = 0): Promise<number> {
    const response = await fetch(`${server.url}/public/reports/?limit=1&${query}`, { headers: { 'x-api-key': server.keys[keyIndex]! } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { total: number }).total;
  }

  const counterReads = () => server.queries.filter((q) => /report_key_counts/.test(q)).length;
  // The two statements of report-query.ts that count reports (a list's total, the grouped totals).
  const counts = () => server.queries.filter((q) => /count\(\*\)::int AS total FROM reports r/.test(q)).length;

  it('reads the counters for lists filtered only by counted columns, and counts for any other filter', async () => {
    const [orgA, orgB] = organizations() as [string, string];
    const prisma = server.db.prisma;
    const [dealership] = await busiest(prisma, orgA, 'dealership_id');
    const [profile] = await busiest(prisma, orgA, 'profile_id');
    const counted: [string, Partial<ReportFilterArgs>][] = [
      ['', {}],
      ['valid=false', { valid: false }],
      ['type=remote', { type: 'remote' }],
      [`dealership_id=${dealership}`, { dealership_id: dealership }],
      [`profile_id=${profile}`, { profile_id: profile }],
      [`organization_id=${orgA}&type=inspection&valid=false`, { organization_id: orgA, type: 'inspection', valid: false }],
      [`type=remote&dealership_id=${dealership}&profile_id=${profile}`, { type: 'remote', dealership_id: dealership, profile_id: profile }],
      [`organization_id=${orgB}`, { organization_id: orgB }],
    ];
    for (const [query, filters] of counted) {
      server.resetQueryLog();
      const total = await restTotal(query);
      expect({ query, reads: counterReads(), counts: counts() }).toEqual({ query, reads: 1, counts: 0 });
      expect({ query, total }).toEqual({ query, total: await countMatches(prisma, orgA, filters) });
    }
    expect(await restTotal(`organization_id=${orgB}`)).toBe(0);

    // Any other filter, or a filter on the nil UUID (the counters' "none"), counts the reports.
    const sample = await prisma.report.findFirstOrThrow({ where: { organization_id: orgA, vin: { not: null } } });
    const uncounted = [
      `vin=${sample.vin}`,
      `type=remote&brand=${encodeURIComponent(sample.brand!)}`,
      `dealership_id=${NIL}`,
      `profile_id=${NIL}`,
    ];
    for (const query of uncounted) {
      server.resetQueryLog();
      await restTotal(query);
      expect({ query, reads: counterReads(), counts: counts() }).toEqual({ query, reads: 0, counts: 1 });
    }
    expect(await restTotal(`dealership_id=${NIL}`)).toBe(0);
    expect(countedByKey({ profile_id: `{${NIL.replace(/-/g, '')}}` })).toBe(false);
    expect(countedByKey({ type: 'remote' }, [randomUUID(), NIL])).toBe(false);

    // GraphQL's nested lists: one grouped statement on the counters, or a grouped count.
    server.resetQueryLog();
    const nested = await graphql<{ dealerships: { items: { id: string; reports: { total: number } }[] } }>(
      server,
      '{ dealerships { items { id reports(limit: 1, type: remote) { total } } } }',
      {},
      server.keys[0],
    );
    expect(nested.body.errors).toBeUndefined();
    expect({ reads: counterReads(), counts: counts() }).toEqual({ reads: 1, counts: 0 });
    for (const item of nested.body.data!.dealerships.items) {
      expect({ id: item.id, total: item.reports.total }).toEqual({
        id: item.id,
        total: await countMatches(prisma, orgA, { type: 'remote', dealership_id: item.id }),
      });
    }
    server.resetQueryLog();
    const users = await graphql<{ users: { items: { id: string; reports: { total: number } }[] } }>(
      server,
      `{ users { items { id reports(limit: 1, vin: "${sample.vin}") { total } } } }`,
      {},
      server.keys[0],
    );
    expect(users.body.errors).toBeUndefined();
    expect({ reads: counterReads(), counts: counts() }).toEqual({ reads: 0, counts: 1 });
    await expectTotalsExact();
  });

  it('stays exact through leads, bulk inserts, the import, key moves, upserts, deletes, rollbacks and a truncate', async () => {
    const prisma = server.db.prisma;
    const [orgA, orgB] = organizations() as [string, string];
    const [dA1, dA2] = dealershipsOf(orgA) as [(typeof server.dataset.dealerships)[number], (typeof server.dataset.dealerships)[number]];
    const [uA1, uA2] = usersOf(orgA);
    const random = chooser(7);

    const lead = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ dealership: dA1.id, name: 'Counted Client' }),
    });
    expect(lead.status).toBe(201);
    await expectTotalsExact();

    // A bulk insert (one statement, many keys, in no particular order).
    const rows = Array.from({ length: 40 }, () => ({
      token: randomUUID(),
      organization_id: orgA,
      entity_id: entityOf(orgA),
      type: random.pick(TYPES),
      valid: random.next() < 0.7,
      dealership_id: random.pick([dA1.id, dA2.id, null]),
      profile_id: random.pick([uA1!.id, uA2!.id, null]),
    }));
    await prisma.report.createMany({ data: rows });
    await expectTotalsExact();

    // The admin import (batches of createMany … ON CONFLICT DO NOTHING): run twice, the second imports nothing.
    const dir = mkdtempSync(path.join(tmpdir(), 'report-counts-'));
    try {
      const file = path.join(dir, 'reports.jsonl');
      const lines = Array.from({ length: 30 }, (_, i) =>
        JSON.stringify({
          token: randomUUID(),
          type: random.pick(TYPES),
          valid: i % 4 !== 0,
          dealership_id: random.pick([dA1.id, dA2.id, null]),
          profile_id: random.pick([uA1!.id, uA2!.id, null]),
          data: { vehicle: { vin: `VF1IMPORT${i}` } },
        }),
      );
      writeFileSync(file, [...lines, '{"type": "nope"}'].join('\n'));
      expect((await importReports(prisma, orgA, file)).imported).toBe(30);
      await expectTotalsExact();
      expect((await importReports(prisma, orgA, file)).skipped_existing).toBe(30);
      await expectTotalsExact();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // Every key column moved, alone or together; swaps within one statement.
    const tokens = rows.map((r) => r.token);
    await prisma.report.updateMany({ where: { token: { in: tokens.slice(0, 5) } }, data: { type: 'marketing' } });
    await prisma.report.updateMany({ where: { token: { in: tokens.slice(5, 10) } }, data: { dealership_id: dA2.id } });
    await prisma.report.updateMany({ where: { token: { in: tokens.slice(10, 14) } }, data: { dealership_id: null, profile_id: uA2!.id } });
    await prisma.report.updateMany({ where: { token: { in: tokens.slice(14, 18) } }, data: { profile_id: null } });
    await prisma.report.updateMany({ where: { token: { in: tokens.slice(18, 22) } }, data: { valid: false } });
    await prisma.report.updateMany({
      where: { token: { in: tokens.slice(22, 26) } },
      data: { organization_id: orgB, entity_id: entityOf(orgB) },
    });
    await expectTotalsExact();
    await prisma.$executeRawUnsafe(
      `UPDATE reports SET type = CASE WHEN type = 'remote' THEN 'inspection'::"ReportType" ELSE 'remote'::"ReportType" END,
         valid = NOT valid WHERE organization_id = $1::uuid`,
      orgA,
    );
    await expectTotalsExact();

    // An update of no key column writes no counter row (their row versions stay the same).
    const versions = () =>
      prisma.$queryRawUnsafe<unknown[]>('SELECT xmin::text, organization_id, valid, type FROM report_key_counts ORDER BY 2, 3, 4');
    const before = await versions();
    await prisma.report.updateMany({ where: { organization_id: orgA }, data: { updated_at: new Date(), state: { touched: true } } });
    expect(await versions()).toEqual(before);

    // INSERT … ON CONFLICT DO UPDATE: one part inserted, one part updated with a new key.
    await prisma.$executeRawUnsafe(
      `INSERT INTO reports (token, organization_id, entity_id, type, valid)
       SELECT t, $1::uuid, $2::uuid, 'rental', true FROM unnest($3::uuid[]) t
       ON CONFLICT (token) DO UPDATE SET type = EXCLUDED.type, dealership_id = NULL`,
      orgA,
      entityOf(orgA),
      [...tokens.slice(26, 30), randomUUID(), randomUUID()],
    );
    await expectTotalsExact();

    // Foreign keys: a dealership's id changed (ON UPDATE CASCADE), a dealership and a user deleted (SET NULL).
    const movedDealership = randomUUID();
    await prisma.$executeRawUnsafe('UPDATE dealerships SET id = $1::uuid WHERE id = $2::uuid', movedDealership, dA2.id);
    await expectCountersMatchReports(prisma);
    expect(await totalOf(prisma, orgA, { dealership_id: movedDealership })).toBe(
      await countMatches(prisma, orgA, { dealership_id: movedDealership }),
    );
    await prisma.$executeRawUnsafe('DELETE FROM dealerships WHERE id = $1::uuid', movedDealership);
    await prisma.$executeRawUnsafe('DELETE FROM users WHERE id = $1::uuid', uA1!.id);
    await expectTotalsExact();

    await prisma.report.deleteMany({ where: { token: { in: tokens.slice(30) } } });
    await prisma.report.deleteMany({ where: { organization_id: orgA, type: 'inspection', valid: false } });
    await expectTotalsExact();

    // Rolled back writes leave the counters as they were.
    const snapshot = await prisma.$queryRawUnsafe('SELECT * FROM report_key_counts ORDER BY 1, 2, 3, 4, 5');
    await prisma
      .$transaction(async (tx) => {
        await tx.report.createMany({ data: rows.map((r) => ({ ...r, token: randomUUID() })) });
        await tx.report.updateMany({ where: { organization_id: orgA }, data: { valid: false, profile_id: null } });
        await tx.report.deleteMany({ where: { organization_id: orgB } });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await prisma.$queryRawUnsafe('SELECT * FROM report_key_counts ORDER BY 1, 2, 3, 4, 5')).toEqual(snapshot);
    await expectTotalsExact();

    // Deleting an organization (its reports cascade) leaves no counter row of it behind.
    await prisma.$executeRawUnsafe('DELETE FROM organizations WHERE id = $1::uuid', orgB);
    await expectCountersMatchReports(prisma);
    expect(await prisma.$queryRawUnsafe('SELECT * FROM report_key_counts WHERE organization_id = $1::uuid', orgB)).toEqual([]);

    await prisma.$executeRawUnsafe('TRUNCATE reports CASCADE');
    await expectCountersMatchReports(prisma);
    expect(await totalOf(prisma, orgA, {})).toBe(0);
  });
});

describe.each(DATABASE_KINDS)('the report_key_counts migration on %s', (kind) => {
  it('backfills the reports already there and removes report_counts, its functions and triggers', async () => {
    const scratch = await createScratchDatabase(kind);
    const db = await scratch.open();
    try {
      const migrations = readMigrations();
      const last = migrations.findIndex((m) => m.name.endsWith('_report_key_counts'));
      await db.withSession((s) => applyMigrations(s, migrations.slice(0, last)));
      await seedDatabase(db.prisma, buildDemoDataset({ reports: 300 }));
      await db.prisma.$executeRawUnsafe(`UPDATE reports SET dealership_id = NULL WHERE token IN (SELECT token FROM reports LIMIT 20)`);
      await db.withSession((s) => applyMigrations(s, migrations));
      await expectCountersMatchReports(db.prisma);
      const [{ n }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT sum(total)::int AS n FROM report_key_counts');
      expect(n).toBe(300);
      const leftovers = await db.prisma.$queryRawUnsafe(`
        SELECT relname AS name FROM pg_class WHERE relname = 'report_counts'
        UNION ALL SELECT proname FROM pg_proc WHERE proname LIKE 'report\\_counts\\_%'
        UNION ALL SELECT tgname FROM pg_trigger WHERE tgname LIKE 'report\\_counts\\_%'`);
      expect(leftovers).toEqual([]);
    } finally {
      await db.close();
      await scratch.drop();
    }
  });
});

describe('report_key_counts under concurrent writers on postgres', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres', { reports: 60 });
  });
  afterAll(() => server.close());

  it('8 connections writing the same keys in parallel transactions (some rolled back) and 2 imports: no drift, no deadlock', async () => {
    const [orgA, orgB] = server.dataset.organizations.map((o) => o.id) as [string, string];
    const entities = Object.fromEntries([orgA, orgB].map((id) => [id, server.dataset.entities.find((e) => e.organization_id === id)!.id]));
    const dealerships = [
      ...server.dataset.dealerships
        .filter((d) => d.organization_id === orgA)
        .slice(0, 2)
        .map((d) => d.id),
      null,
    ];
    const profiles = [
      ...server.dataset.users
        .filter((u) => u.organization_id === orgA)
        .slice(0, 2)
        .map((u) => u.id),
      null,
    ];
    const errors: string[] = [];
    const outcomes = { committed: 0, rolledBack: 0 };
    // A few seconds and at least 200 transactions, however slow the machine (bounded all the same).
    const started = Date.now();
    const done = () => Date.now() - started > 40_000 || (Date.now() - started > 4_000 && outcomes.committed + outcomes.rolledBack >= 200);

    /** One random key; every worker draws from the same few, so they meet on the same counter rows. */
    const keyOf = (random: ReturnType<typeof chooser>) => {
      const organization = random.next() < 0.85 ? orgA : orgB;
      return {
        organization,
        entity: entities[organization]!,
        type: random.pick(['remote', 'inspection'] as const),
        valid: random.next() < 0.6,
        dealership: random.pick(dealerships),
        profile: random.pick(profiles),
      };
    };

    async function writer(seed: number): Promise<void> {
      const random = chooser(seed);
      const client = new pg.Client({ connectionString: server.databaseUrl });
      client.on('error', (error) => errors.push(String(error)));
      await client.connect();
      // Reports this worker has committed: it updates and deletes only those, so that workers meet
      // on the counters, not on report rows.
      let mine: string[] = [];
      try {
        while (!done()) {
          const keys = Array.from({ length: 1 + Math.floor(random.next() * 6) }, () => keyOf(random));
          const op = mine.length < 6 ? 0 : random.next();
          const chosen = mine.slice(0, keys.length);
          await client.query('BEGIN');
          try {
            let after = mine;
            if (op < 0.45) {
              const tokens = keys.map(() => randomUUID());
              await client.query(
                `INSERT INTO reports (token, organization_id, entity_id, type, valid, dealership_id, profile_id)
                 SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::"ReportType"[], $5::bool[], $6::uuid[], $7::uuid[])`,
                [
                  tokens,
                  keys.map((k) => k.organization),
                  keys.map((k) => k.entity),
                  keys.map((k) => k.type),
                  keys.map((k) => k.valid),
                  keys.map((k) => k.dealership),
                  keys.map((k) => k.profile),
                ],
              );
              after = [...mine, ...tokens];
            } else if (op < 0.8) {
              await client.query(
                `UPDATE reports r SET organization_id = v.organization, entity_id = v.entity, type = v.type, valid = v.valid,
                   dealership_id = v.dealership, profile_id = v.profile
                 FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::"ReportType"[], $5::bool[], $6::uuid[], $7::uuid[])
                   AS v(token, organization, entity, type, valid, dealership, profile)
                 WHERE r.token = v.token`,
                [
                  chosen,
                  keys.map((k) => k.organization),
                  keys.map((k) => k.entity),
                  keys.map((k) => k.type),
                  keys.map((k) => k.valid),
                  keys.map((k) => k.dealership),
                  keys.map((k) => k.profile),
                ],
              );
              after = [...mine.slice(chosen.length), ...chosen];
            } else {
              await client.query('DELETE FROM reports WHERE token = ANY($1::uuid[])', [chosen]);
              after = mine.slice(chosen.length);
            }
            // Hold the counter rows a moment, so that other transactions queue on them.
            await client.query('SELECT pg_sleep($1)', [random.next() * 0.004]);
            if (random.next() < 0.2) {
              await client.query('ROLLBACK');
              outcomes.rolledBack += 1;
            } else {
              await client.query('COMMIT');
              outcomes.committed += 1;
              mine = after;
            }
          } catch (error) {
            errors.push(String(error));
            await client.query('ROLLBACK');
          }
        }
      } finally {
        await client.end();
      }
    }

    async function importer(seed: number): Promise<void> {
      const random = chooser(seed);
      const dir = mkdtempSync(path.join(tmpdir(), 'report-counts-import-'));
      try {
        const file = path.join(dir, 'reports.jsonl');
        const lines = Array.from({ length: 1_200 }, (_, i) => {
          const key = keyOf(random);
          return JSON.stringify({
            type: key.type,
            valid: key.valid,
            dealership_id: key.dealership,
            profile_id: key.profile,
            data: { vehicle: { vin: `VF1CONCURRENT${seed}${i}` } },
          });
        });
        writeFileSync(file, lines.join('\n'));
        const result = await importReports(server.db.prisma, orgA, file);
        if (result.imported !== 1_200) errors.push(`import ${seed}: ${JSON.stringify(result)}`);
      } catch (error) {
        errors.push(`import ${seed}: ${String(error)}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }

    await Promise.all([...Array.from({ length: 8 }, (_, i) => writer(100 + i)), importer(1), importer(2)]);
    expect(errors).toEqual([]);
    expect(outcomes.committed).toBeGreaterThan(100);
    expect(outcomes.rolledBack).toBeGreaterThan(10);
    await expectCountersMatchReports(server.db.prisma);
    const [{ deadlocks }] = await server.db.prisma.$queryRawUnsafe<{ deadlocks: number }[]>(
      'SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()',
    );
    expect(deadlocks).toBe(0);
  }, 120_000);
});
