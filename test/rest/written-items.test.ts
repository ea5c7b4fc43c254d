/**
 * The reports list's items written as JSON by PostgreSQL (features/reports/report-item-json.ts,
 * api/rest/written-items.ts), over real HTTP on both databases. The oracle is the typed path
 * itself: a second app on the same database whose answer budget is too small for written items
 * (MAX_ANSWER_VALUES 10,000, less than a page of 1,000 could hold: api/rest/written-items.ts then
 * leaves the route typed), so every body,
 * header and cursor of both must be equal byte for byte, for generated values (controls, quotes,
 * backslashes, non-BMP characters, U+2028, empty and long text, timestamps at the edges of what
 * PostgreSQL writes) and a seeded random choice of filters, orders and pages.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../../src/app/create-app';
import { createHttpServer } from '../../src/platform/http/http-server';
import { reportItemJsonSql } from '../../src/features/reports/report-item-json';
import { MAX_WRITTEN_FIELDS } from '../../src/api/written-items';
import { SeededRandom } from '../../src/seed/vehicles';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';

/** Text values a vin, a plate or a user's fields may hold (no NUL: PostgreSQL's text cannot). */
const TEXT_VALUES = [
  '',
  'plain',
  'quote " and backslash \\',
  '\u0001\u0007\b\t\n\u000b\f\r\u001b\u001f\u007f',
  'é à ü ß — “curly” ‘single’',
  '\u2028\u2029 line separators',
  '😀 𝄞 non-BMP',
  '</script><!--',
  'x'.repeat(3000),
  '{"json":"inside"}',
  'ÿ\u0080\u009f\u00a0',
];

/** Timestamps whose text PostgreSQL and toISOString write alike, or (last ones) that make the page typed. */
const TIMESTAMPS = [
  '1970-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '2024-02-29T12:34:56.789Z',
  '0100-01-01T00:00:00.000Z',
  '0999-12-31T23:59:59.001Z',
  '9999-12-31T23:59:59.999Z',
  '2026-06-15T08:00:00.010Z',
];
const TYPED_ONLY_TIMESTAMPS = ['0099-12-31T23:59:59.999Z', 'infinity', '-infinity', '10000-01-01T00:00:00.000Z'];

describe.each(DATABASE_KINDS)('reports list items written by PostgreSQL on %s', (kind) => {
  let server: TestServer;
  let typed: { url: string; close: () => Promise<void> };
  let key: string;
  let organizationId: string;
  let sql: (text: string, values?: unknown[]) => Promise<unknown>;
  let closeClient: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 150 });
    key = server.keys[0]!;
    organizationId = server.dataset.organizations[0]!.id;
    // The oracle: the same code on the same database, with items left to the typed path.
    const app = await createApp({ db: server.db, config: { ...server.config, maxAnswerValues: 10_000 } });
    const http: Server = createHttpServer(app, { requestTimeoutMs: server.config.requestTimeoutMs });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    typed = {
      url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      close: async () => {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      },
    };
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      sql = (text, values = []) => client.query(text, values);
      closeClient = () => client.end();
    } else {
      sql = (text, values = []) => server.db.prisma.$executeRawUnsafe(text, ...values);
    }
  }, 120_000);
  afterAll(async () => {
    await closeClient();
    await typed?.close();
    await server.close();
  });

  const get = async (base: string, path: string) => {
    const response = await fetch(`${base}/public/reports/${path}`, { headers: { 'x-api-key': key } });
    return { status: response.status, link: response.headers.get('link'), text: await response.text() };
  };
  /** Both apps' answers, which must be equal (a failure's body names its own request id: its status only); the written one is returned. */
  const bothAlike = async (path: string) => {
    const [written, oracle] = await Promise.all([get(server.url, path), get(typed.url, path)]);
    if (oracle.status === 200) expect(written).toEqual(oracle);
    else expect(written.status).toBe(oracle.status);
    return written;
  };
  const organizationTokens = async () =>
    (
      (await server.db.prisma.$queryRawUnsafe(
        `SELECT token::text AS token FROM reports WHERE organization_id = $1::uuid ORDER BY token`,
        organizationId,
      )) as { token: string }[]
    ).map((r) => r.token);

  it('the REST selection is one PostgreSQL writes, and the oracle app does not', async () => {
    expect(reportItemJsonSql([{ key: 'token', field: 'token' }], organizationId)).toBeDefined();
    // A field it does not know, or a selection under a leaf: not written.
    expect(
      reportItemJsonSql(
        [
          { key: 'token', field: 'token' },
          { key: 'x', field: 'organization', select: [{ key: 'id', field: 'id' }] },
        ],
        organizationId,
      ),
    ).toBeUndefined();
    expect(reportItemJsonSql([{ key: 'token', field: 'token', select: [{ key: 'id', field: 'id' }] }], organizationId)).toBeUndefined();
    expect(reportItemJsonSql([{ key: 'bad-key', field: 'token' }], organizationId)).toBeUndefined();
    // Both apps answer the default page, alike: one with written items, the other typed.
    server.resetQueryLog();
    await get(server.url, '');
    expect(server.queries.some((q) => q.includes('AS item_json'))).toBe(true);
    server.resetQueryLog();
    await get(typed.url, '');
    expect(server.queries.some((q) => q.includes('AS item_json'))).toBe(false);
    const page = await bothAlike('');
    expect(page.status).toBe(200);
    expect(JSON.parse(page.text).items.length).toBeGreaterThan(10);
  });

  it('writes every page of the organization as the typed path does: walked by cursor and by offset, filtered and ordered', async () => {
    let path = '?limit=7';
    let pages = 0;
    for (;;) {
      const page = await bothAlike(path);
      expect(page.status).toBe(200);
      pages += 1;
      const cursor = (JSON.parse(page.text) as { next_cursor: string | null }).next_cursor;
      if (!cursor) break;
      path = `?limit=7&cursor=${encodeURIComponent(cursor)}`;
    }
    expect(pages).toBeGreaterThan(3);
    for (const path of [
      '?offset=5&limit=20',
      '?order_by=vin&limit=30',
      '?order_by=-brand,token&limit=30',
      '?order_by=dealership_name&limit=30',
      '?valid=false',
      '?type=remote&limit=1000',
      '?limit=0',
      '?offset=100000',
      `?organization_id=${organizationId}&search=a`,
    ]) {
      expect((await bothAlike(path)).status).toBe(200);
    }
  });

  it('writes generated values (text classes, edge timestamps, missing and foreign profiles) as the typed path does', async () => {
    const random = new SeededRandom(Number(process.env.FUZZ_SEED ?? 20261128));
    const tokens = await organizationTokens();
    const users = (await server.db.prisma.$queryRawUnsafe(
      `SELECT id::text AS id, organization_id::text AS organization_id FROM users`,
    )) as {
      id: string;
      organization_id: string;
    }[];
    const own = users.filter((u) => u.organization_id === organizationId).map((u) => u.id);
    const foreign = users.filter((u) => u.organization_id !== organizationId).map((u) => u.id);
    expect(own.length).toBeGreaterThan(0);
    expect(foreign.length).toBeGreaterThan(0);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random.next() * values.length)]!;
    const text = () => (random.next() < 0.15 ? null : pick(TEXT_VALUES));
    for (const id of own) {
      await sql(`UPDATE users SET name = $2, email = $3, phone = $4 WHERE id = $1::uuid`, [id, pick(TEXT_VALUES), text(), text()]);
    }
    const dealerships = (await server.db.prisma.$queryRawUnsafe(
      `SELECT id::text AS id, organization_id::text AS organization_id FROM dealerships`,
    )) as {
      id: string;
      organization_id: string;
    }[];
    const foreignDealerships = dealerships.filter((d) => d.organization_id !== organizationId).map((d) => d.id);
    for (const { id } of dealerships.filter((d) => d.organization_id === organizationId)) {
      await sql(
        `UPDATE dealerships SET name = $2, logo = $3, siret = $4, more_info = $5, position = $6, headquarter = $7 WHERE id = $1::uuid`,
        [id, pick(TEXT_VALUES), text(), text(), text(), pick([0, -1, 2147483647, -2147483648, 42]), random.next() < 0.5],
      );
    }
    for (const token of tokens) {
      // Now and then another organization's dealership (bad data): its loader finds none.
      if (random.next() < 0.05)
        await sql(`UPDATE reports SET dealership_id = $2::uuid WHERE token = $1::uuid`, [token, pick(foreignDealerships)]);
      const vehicle = { vin: text(), license: { number: text() } };
      const profile = random.next() < 0.2 ? null : random.next() < 0.1 ? pick(foreign) : pick(own);
      await sql(
        `UPDATE reports SET data = jsonb_set(data, '{vehicle}', COALESCE(data->'vehicle', '{}') || $2::jsonb),
           created_at = $3::timestamptz, updated_at = $4::timestamptz, profile_id = $5::uuid WHERE token = $1::uuid`,
        [token, JSON.stringify(vehicle), pick(TIMESTAMPS), pick(TIMESTAMPS), profile],
      );
    }
    // A profile deleted from under its reports (no foreign key between them would stop bad data).
    for (let page = 0; page * 50 < tokens.length + 50; page += 1) {
      expect((await bothAlike(`?limit=50&offset=${page * 50}&order_by=token`)).status).toBe(200);
    }
    for (const order of ['created_at', '-updated_at', 'vin', '-license_number']) {
      let path = `?limit=40&order_by=${order}`;
      for (;;) {
        const page = await bothAlike(path);
        const cursor = (JSON.parse(page.text) as { next_cursor: string | null }).next_cursor;
        if (!cursor) break;
        path = `?limit=40&order_by=${order}&cursor=${encodeURIComponent(cursor)}`;
      }
    }
  });

  /** GraphQL's answer, as written, to a document. */
  const graphqlText = async (query: string) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, text: await response.text() };
  };
  /**
   * A `reports` query answered with written items equals the same query executed typed (a second
   * root field, `__typename`, keeps it from written items), byte for byte. Returns whether items were written.
   */
  const graphqlAlike = async (rootField: string): Promise<boolean> => {
    server.resetQueryLog();
    const written = await graphqlText(`{ ${rootField} }`);
    const wrote = server.queries.some((q) => q.includes('AS item_json'));
    const typed = await graphqlText(`{ ${rootField} __typename }`);
    expect(written.status).toBe(typed.status);
    const oracle = JSON.parse(typed.text) as { data?: Record<string, unknown> | null };
    if (oracle.data) delete oracle.data.__typename;
    expect(written.text).toBe(`${JSON.stringify(oracle)}\n`);
    return wrote;
  };

  it('GraphQL: generated selections of a page (aliases, relations, any order) are written as graphql-jit answers them', async () => {
    const random = new SeededRandom(Number(process.env.FUZZ_SEED ?? 20261128) + 1);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random.next() * values.length)]!;
    const some = (fields: readonly string[]) => {
      const chosen = fields.filter(() => random.next() < 0.5);
      return (chosen.length > 0 ? chosen : [pick(fields)]).sort(() => random.next() - 0.5);
    };
    const alias = (name: string) => (random.next() < 0.2 ? `a${Math.floor(random.next() * 1000)}: ${name}` : name);
    const ITEM = [
      'token',
      'id',
      'created_at',
      'updated_at',
      'organization_id',
      'dealership_id',
      'entity_id',
      'profile_id',
      'contact_id',
      'counter_id',
      'type',
      'valid',
      'data',
      'dealership',
      'profile',
    ];
    const DEALERSHIP = [
      'id',
      'name',
      'created_at',
      'updated_at',
      'organization_id',
      'entity_id',
      'logo',
      'illustration_img',
      'more_info',
      'siret',
      'position',
      'headquarter',
    ];
    const USER = [
      'id',
      'name',
      'is_active',
      'created_at',
      'organization_id',
      'entity_id',
      'dealership_id',
      'created_by',
      'role',
      'photo',
      'phone',
      'position',
      'email',
      'last_activity',
    ];
    // Fields not written by PostgreSQL: their documents are executed typed (and must still be alike).
    const UNWRITTEN = ['__typename', 'organization { id }', 'contact { id }', 'dealership { brands }', 'profile { address }'];
    const item = (field: string) =>
      field === 'data'
        ? `${alias('data')} { vehicle { ${some(['vin', 'license_number']).map(alias).join(' ')} } }`
        : field === 'dealership'
          ? `${alias('dealership')} { ${some(DEALERSHIP).map(alias).join(' ')} }`
          : field === 'profile'
            ? `${alias('profile')} { ${some(USER).map(alias).join(' ')} }`
            : alias(field);
    let wrote = 0;
    for (let i = 0; i < 40; i += 1) {
      const items = some(ITEM).map(item);
      if (random.next() < 0.15) items.push(pick(UNWRITTEN));
      const page = [`${alias('items')} { ${items.join(' ')} }`, ...some(['total', 'limit', 'offset', 'next_cursor'])].sort(
        () => random.next() - 0.5,
      );
      const args = [
        `limit: ${pick([0, 1, 7, 50, 200])}`,
        `order_by: "${pick(['-created_at', 'vin', '-brand', 'dealership_name', 'token'])}"`,
      ];
      if (random.next() < 0.3) args.push(`type: ${pick(['remote', 'inspection'])}`);
      if (await graphqlAlike(`${alias('reports')}(${args.join(', ')}) { ${page.join(' ')} }`)) wrote += 1;
    }
    expect(wrote).toBeGreaterThan(20);
    // A relation selected twice (one join), and both relations: written, alike.
    expect(
      await graphqlAlike(
        'reports(limit: 30) { items { profile { id } p2: profile { name email } dealership { name } d2: dealership { id } } }',
      ),
    ).toBe(true);
    // Not written: more fields than MAX_WRITTEN_FIELDS (the statement's text would grow with a client's aliases)
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `t${i}: token`).join(' ');
    expect(await graphqlAlike(`reports(limit: 5) { items { ${aliases(MAX_WRITTEN_FIELDS)} } }`)).toBe(true);
    expect(await graphqlAlike(`reports(limit: 5) { items { ${aliases(MAX_WRITTEN_FIELDS + 1)} } }`)).toBe(false);
    // Not written: two root fields, a fragment, a directive; still answered alike.
    expect(await graphqlAlike('reports(limit: 3) { items { token } } r2: reports(limit: 2) { total }')).toBe(false);
    expect(await graphqlAlike('reports(limit: 3) { items { ... on ReportCompact { token } } }')).toBe(false);
    expect(await graphqlAlike('reports(limit: 3) { items { token @include(if: true) } }')).toBe(false);
    expect(await graphqlAlike('reports(limit: 3) { items { token } items2: items { token } }')).toBe(false);
  });

  it('a page holding a timestamp PostgreSQL does not write as toISOString does is answered the typed way', async () => {
    const [token] = await organizationTokens();
    for (const value of TYPED_ONLY_TIMESTAMPS) {
      await sql(`UPDATE reports SET updated_at = $2::timestamptz WHERE token = $1::uuid`, [token, value]);
      const page = await bothAlike(`?token=${token}`);
      // Whatever the typed path answers (a year outside 0000-9999 or infinity is no DateTimeISO), the same.
      expect([200, 500]).toContain(page.status);
      await graphqlAlike(`reports(token: "${token}") { items { token updated_at } }`);
    }
    await sql(`UPDATE reports SET updated_at = now() WHERE token = $1::uuid`, [token]);
    expect((await bothAlike(`?token=${token}`)).status).toBe(200);
  });
});
