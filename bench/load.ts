/**
 * Fills a migrated PostgreSQL database with N realistic reports (~8 KB `data` each, from the
 * seed's document builder) spread over several tenants, fast: multi-row INSERTs of 250 rows on two
 * connections, with the reports' secondary indexes dropped during the load and rebuilt after it
 * (the same definitions, read back from pg_indexes), then ANALYZE.
 */
import pg from 'pg';
import { buildDemoDataset, REPORT_TYPES, type DemoDataset } from '../src/seed/dataset';
import { buildReportDocument, createVehicleIdentity, type ClientIdentity } from '../src/seed/report-document';
import { SeededRandom, findBrand } from '../src/seed/vehicles';
import type { ReportType } from '../src/generated/prisma/client';

const BATCH_ROWS = 250;
const INSERT_CONNECTIONS = 2;
const NOW = new Date('2026-11-01T12:00:00Z');
const HISTORY_MS = 548 * 86_400_000;

/** Three copies of the demo structure (different ids), the first one the big tenant. */
const TENANTS: readonly { seed: number; share: number; suffix: string }[] = [
  { seed: 42, share: 0.6, suffix: '' },
  { seed: 4242, share: 0.25, suffix: ' (Nord)' },
  { seed: 424242, share: 0.15, suffix: ' (Ouest)' },
];
const ORGANIZATION_SHARES = [0.65, 0.35];

export interface LoadedStructure {
  organizations: DemoDataset['organizations'];
  entities: DemoDataset['entities'];
  dealerships: DemoDataset['dealerships'];
  users: DemoDataset['users'];
  /** organization id → share of the reports */
  weights: Map<string, number>;
}

function buildStructure(): LoadedStructure {
  const all: LoadedStructure = { organizations: [], entities: [], dealerships: [], users: [], weights: new Map() };
  for (const tenant of TENANTS) {
    const d = buildDemoDataset({ seed: tenant.seed, reports: 0, now: NOW });
    d.organizations.forEach((o, i) => {
      o.name += tenant.suffix;
      all.weights.set(o.id, tenant.share * (ORGANIZATION_SHARES[i] ?? 0));
    });
    // Lead creation in the benchmark must never run out of quota.
    for (const e of d.entities) e.remote_quota = 1_000_000_000;
    all.organizations.push(...d.organizations);
    all.entities.push(...d.entities);
    all.dealerships.push(...d.dealerships);
    all.users.push(...d.users);
  }
  return all;
}

async function insertRows(client: pg.ClientBase, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = columns.map((column) => {
      const value = row[column];
      values.push(
        value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) ? JSON.stringify(value) : value,
      );
      return `$${values.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  await client.query(`INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${tuples.join(', ')}`, values);
}

const FIRST_NAMES = ['Lucas', 'Hugo', 'Louis', 'Emma', 'Léa', 'Chloé', 'Camille', 'Karim', 'Inès', 'Julie', 'Thomas', 'Sophie'];
const LAST_NAMES = ['Martin', 'Bernard', 'Dubois', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Garcia', 'Roux', 'Nguyen', 'Haddad', 'Fontaine'];
const CITIES = ['Marseille', 'Lyon', 'Paris', 'Lille', 'Nantes', 'Toulon', 'Grenoble'];
const TYPE_WEIGHTS: readonly (readonly [ReportType, number])[] = REPORT_TYPES.map((t) => [
  t,
  t === 'inspection' || t === 'remote' ? 28 : 5,
]);

function client(random: SeededRandom): ClientIdentity {
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const ascii = (s: string) =>
    s
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  return {
    foreign: false,
    optinEmail: random.bool(0.5),
    optinPhone: random.bool(0.4),
    latitude: 45 + random.float(-3, 3, 4),
    longitude: 3 + random.float(-3, 3, 4),
    city: random.pick(CITIES),
    name: `${first} ${last}`,
    email: `${ascii(first)}.${ascii(last)}${random.int(1, 999)}@example.fr`,
    phone: `+3363998${random.digits(4)}`,
    address: `${random.int(1, 150)} rue de la République`,
    zipcode: '69007',
    civility: random.bool(0.5) ? 'M.' : 'Mme',
    businessName: '',
  };
}

function reportRow(random: SeededRandom, s: LoadedStructure, orgWeights: [string, number][], sequence: number) {
  const organizationId = random.weighted(orgWeights);
  const dealership = random.pick(s.dealerships.filter((d) => d.organization_id === organizationId));
  const users = s.users.filter((u) => u.organization_id === organizationId);
  const createdAt = new Date(NOW.getTime() - HISTORY_MS + Math.sqrt(random.next()) * (HISTORY_MS - 86_400_000));
  const type = random.weighted(TYPE_WEIGHTS);
  const token = random.uuid();
  const profileId = type === 'remote' && random.bool(0.4) ? null : random.pick(users).id;
  const brand = random.bool(0.7) ? findBrand(random.pick(dealership.brands)) : undefined;
  const who = client(random);
  const doc = buildReportDocument(random, {
    token,
    type,
    createdAt,
    now: NOW,
    folderName: `F-${sequence} ${who.name.split(' ')[1]!.toUpperCase()}`,
    creatorId: profileId,
    dealershipId: dealership.id,
    appVersion: random.pick(['4.8.2', '5.0.1', '5.1.0', '5.2.0']),
    vehicle: createVehicleIdentity(random, createdAt, brand),
    client: who,
    counterOfToken: null,
  });
  return {
    token,
    created_at: createdAt,
    updated_at: doc.updatedAt,
    organization_id: organizationId,
    entity_id: dealership.entity_id,
    dealership_id: dealership.id,
    profile_id: profileId,
    type,
    valid: random.bool(0.95),
    data: doc.data,
    state: doc.state,
    real_costs: doc.real_costs,
  };
}

async function withIndexesDropped(pool: pg.Pool, log: (line: string) => void, load: () => Promise<void>): Promise<void> {
  const { rows } = await pool.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'reports' AND indexname <> 'reports_pkey'`,
  );
  for (const row of rows) await pool.query(`DROP INDEX "${row.indexname}"`);
  await load();
  const started = Date.now();
  // Two at a time: one per core.
  const queue = [...rows];
  await Promise.all(
    Array.from({ length: INSERT_CONNECTIONS }, async () => {
      const c = await pool.connect();
      try {
        await c.query(`SET maintenance_work_mem = '256MB'`);
        for (let next = queue.shift(); next; next = queue.shift()) await c.query(next.indexdef);
      } finally {
        c.release();
      }
    }),
  );
  log(`  rebuilt ${rows.length} report indexes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export async function loadBenchData(url: string, reports: number, log: (line: string) => void): Promise<LoadedStructure> {
  const pool = new pg.Pool({ connectionString: url, max: INSERT_CONNECTIONS + 1 });
  try {
    const s = buildStructure();
    const c = await pool.connect();
    try {
      await insertRows(c, 'organizations', s.organizations);
      await insertRows(c, 'entities', s.entities);
      await insertRows(c, 'dealerships', s.dealerships);
      await insertRows(c, 'users', s.users);
    } finally {
      c.release();
    }
    const orgWeights = s.organizations.map((o) => [o.id, s.weights.get(o.id)!] as [string, number]);
    const random = new SeededRandom(7);
    const started = Date.now();
    await withIndexesDropped(pool, log, async () => {
      let made = 0;
      const inFlight = new Set<Promise<void>>();
      while (made < reports) {
        const batch: Record<string, unknown>[] = [];
        for (let i = 0; i < BATCH_ROWS && made < reports; i += 1, made += 1) batch.push(reportRow(random, s, orgWeights, made));
        // Build the next batch while the previous ones are being written.
        const insert: Promise<void> = pool.connect().then(async (conn) => {
          try {
            await insertRows(conn, 'reports', batch);
          } finally {
            conn.release();
          }
        });
        inFlight.add(insert);
        void insert.finally(() => inFlight.delete(insert));
        if (inFlight.size >= INSERT_CONNECTIONS) await Promise.race(inFlight);
        if (made % 20_000 === 0) log(`  ${made} reports (${Math.round(made / ((Date.now() - started) / 1000))}/s)`);
      }
      await Promise.all(inFlight);
      log(`  inserted ${reports} reports in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
    // A bulk-loaded table has no visibility map until (auto)vacuum runs, and without it every
    // "index-only" scan (page totals) visits the heap. Production tables are kept vacuumed by
    // autovacuum; measure that state, not the minute after a bulk load.
    await pool.query('VACUUM (ANALYZE)');
    return s;
  } finally {
    await pool.end();
  }
}
