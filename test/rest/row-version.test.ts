/**
 * One version per row (issue 44): a report's ETag changes whenever anything its answer is built
 * from changes, whoever writes it. Each column a writer may set is changed by plain SQL, as the
 * inspection application or an import would, once leaving `updated_at` alone and once moving it:
 * the old If-None-Match gets a 200 with the new body (and a new ETag), never a 304 with the old one.
 * Over real HTTP, on both databases.
 */
import pg from 'pg';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';

describe.each(DATABASE_KINDS)('a report answer changes with its row, whoever writes it, on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let token: string;
  let counter: string;
  let dealership: string;
  let profile: string;
  let write: (text: string, values: unknown[]) => Promise<void>;
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
    key = server.keys[0]!;
    const organizationId = server.dataset.organizations[0]!.id;
    const own = server.dataset.reports.filter((r) => r.organization_id === organizationId);
    token = own[0]!.token;
    counter = own[1]!.token;
    dealership = server.dataset.dealerships.find((d) => d.organization_id === organizationId)!.id;
    profile = server.dataset.users.find((u) => u.organization_id === organizationId)!.id;
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      write = async (text, values) => void (await client.query(text, values));
      close = () => client.end();
    } else {
      write = async (text, values) => void (await server.db.prisma.$executeRawUnsafe(text, ...values));
    }
  });
  afterAll(async () => {
    await close();
    await server.close();
  });

  const get = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': key, ...headers } });
    return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
  };

  /** Each column a writer sets, a change of it, and what the body then shows. */
  const CHANGES: [string, string, (body: Record<string, unknown>) => unknown][] = [
    [
      'data',
      `data = jsonb_set(data, '{vehicle,vin}', to_jsonb('VF1CHANGED' || md5(random()::text)))`,
      (b) => (b.data as { vehicle: { vin: string } }).vehicle.vin,
    ],
    [
      'state',
      `state = jsonb_set(state, '{folder_sold}', jsonb_build_object('status', true, 'name', md5(random()::text)))`,
      (b) => (b.state as { folder_sold: unknown }).folder_sold,
    ],
    ['real_costs', `real_costs = jsonb_build_object('salesPrice', floor(random() * 100000), 'repairCosts', 10)`, (b) => b.real_costs],
    ['valid', 'valid = NOT valid', (b) => b.valid],
    ['type', `type = CASE WHEN type = 'remote' THEN 'inspection'::"ReportType" ELSE 'remote'::"ReportType" END`, (b) => b.type],
    ['dealership_id', `dealership_id = CASE WHEN dealership_id IS NULL THEN '$DEALERSHIP'::uuid END`, (b) => b.dealership_id],
    ['profile_id', `profile_id = CASE WHEN profile_id IS NULL THEN '$PROFILE'::uuid END`, (b) => b.profile_id],
    ['counter_id', `counter_id = CASE WHEN counter_id IS NULL THEN '$COUNTER'::uuid END`, (b) => b.counter_id],
    ['created_at', `created_at = created_at - interval '1 day'`, (b) => b.created_at],
  ];

  it.each(CHANGES)('%s changed by plain SQL: an old If-None-Match gets a 200 with the new body', async (_column, change, shown) => {
    for (const movesUpdatedAt of [false, true]) {
      const before = await get();
      expect(before.status).toBe(200);
      const set =
        change.replace('$COUNTER', counter).replace('$DEALERSHIP', dealership).replace('$PROFILE', profile) +
        (movesUpdatedAt ? `, updated_at = updated_at + interval '1 second'` : '');
      await write(`UPDATE reports SET ${set} WHERE token = $1::uuid`, [token]);
      const after = await get({ 'if-none-match': before.etag! });
      expect({ movesUpdatedAt, status: after.status }).toEqual({ movesUpdatedAt, status: 200 });
      expect(after.etag).not.toBe(before.etag);
      expect(after.body).not.toBe(before.body);
      expect(shown(JSON.parse(after.body) as Record<string, unknown>)).not.toEqual(
        shown(JSON.parse(before.body) as Record<string, unknown>),
      );
      // And the new version is the one a later request compares against.
      expect((await get({ 'if-none-match': after.etag! })).status).toBe(304);
    }
  });

  it('a write that changes nothing the answer shows still gives a new version (never an old body under a new tag)', async () => {
    const before = await get();
    await write('UPDATE reports SET data = data WHERE token = $1::uuid', [token]);
    const after = await get({ 'if-none-match': before.etag! });
    expect(after.status).toBe(200);
    expect(after.body).toBe(before.body);
  });
});
