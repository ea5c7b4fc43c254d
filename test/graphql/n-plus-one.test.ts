/**
 * No N+1: the SQL statements behind a page of reports are a fixed handful whatever the page size:
 * the answer plan joins every relation PostgreSQL writes into the page's own statement
 * (api/answer-plan), and a selection it leaves to the typed path reads each relation through a
 * per-request DataLoader (one batched statement each).
 * Counted from the statements Prisma really ran, on PGlite and on PostgreSQL.
 */
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dataOf } from './expected';

interface CompactIds {
  dealership_id: string | null;
  profile_id: string | null;
  contact_id: string | null;
  counter_id: string | null;
}

const SCALARS =
  'token created_at updated_at type valid organization_id dealership_id profile_id contact_id counter_id data { vehicle { vin license_number } }';

/** Each level of nesting a client may ask for, with the statements it should cost. */
const DEPTHS = [
  {
    depth: 1,
    selection: SCALARS,
    // the page, its total
    statements: 2,
  },
  {
    depth: 2,
    selection: `${SCALARS}
      dealership { id name user_count }
      profile { id name }
      organization { id name }
      contact { id name }
      counter { token type }`,
    // the page, every relation joined into it (the answer plan), and its total
    statements: 2,
  },
  {
    depth: 3,
    selection: `${SCALARS}
      dealership {
        name
        users(limit: 5) { total items { id name email } }
        reports(limit: 3) { total items { token profile { name } } }
      }`,
    // nested pages are the typed path's: the page, its total, its dealerships (one statement for
    // all), a page of users per dealership and their totals (one statement each for all
    // dealerships), the same for reports, and those reports' profiles
    statements: 8,
  },
] as const;

describe.each(['pglite', 'postgres'] as const)('SQL statements per page of reports on %s', (kind) => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 300 });
    // The second organization: its newest reports include counter-inspections. A lead gives the
    // newest report a contact, so even a page of 10 exercises every relation.
    apiKey = server.keys[1]!;
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[1]!.id)!;
    dataOf(
      await graphql(
        server,
        'mutation($d: UUID!) { createLead(dealership: $d, name: "N. Plusone", email: "n@example.com") { token } }',
        { d: dealership.id },
        apiKey,
      ),
    );
    // Seeding 300 reports into PGlite takes most of a minute on a busy 2-core machine.
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  /** Statements of one request, leaving out the API key lookup and its last_used_at bookkeeping. */
  async function statementsFor(query: string, variables: Record<string, unknown>): Promise<{ statements: string[]; items: CompactIds[] }> {
    server.resetQueryLog();
    const data = dataOf<{ reports: { items: CompactIds[] } }>(await graphql(server, query, variables, apiKey));
    const keyLookups = server.queries.filter((q) => /^SELECT .* FROM ("public"\.)?"?api_keys"? WHERE/.test(q));
    // One lookup, or none once the key is in the cache (features/auth/api-key-cache.ts).
    expect(keyLookups.length).toBeLessThanOrEqual(1);
    return { statements: server.queries.filter((q) => !/"?api_keys"?/.test(q)), items: data.reports.items };
  }

  it.each(DEPTHS)('depth $depth: $statements statements for 10 reports and for 100', async ({ selection, statements }) => {
    const query = `query Page($limit: Int) { reports(limit: $limit) { total items { ${selection} } } }`;
    const small = await statementsFor(query, { limit: 10 });
    const large = await statementsFor(query, { limit: 100 });

    expect(small.items).toHaveLength(10);
    expect(large.items).toHaveLength(100);
    // Both pages must hold every kind of relation, or a loader would simply not run for one of them.
    for (const { items } of [small, large]) {
      for (const column of ['dealership_id', 'profile_id', 'contact_id', 'counter_id'] as const) {
        expect([column, items.some((item) => item[column] !== null)]).toEqual([column, true]);
      }
    }

    expect({ limit: 10, count: small.statements.length, statements: small.statements }).toMatchObject({ count: statements });
    expect(large.statements).toHaveLength(small.statements.length);
  });

  it('counts the total only when it is selected (directly, through a fragment, or by REST)', async () => {
    // A total is a count, or (only counted filters) a sum of the organization's counter rows.
    const counts = (statements: string[]) => statements.filter((q) => /count\(\*\)|report_key_counts/i.test(q)).length;
    const withoutTotal = await statementsFor('{ reports(limit: 10) { items { token } } }', {});
    expect(withoutTotal.statements).toHaveLength(1);
    expect(counts(withoutTotal.statements)).toBe(0);
    const withTotal = await statementsFor('{ reports(limit: 10) { total items { token } } }', {});
    expect(counts(withTotal.statements)).toBe(1);
    const throughFragment = await statementsFor(
      '{ reports(limit: 10) { ...Envelope items { token } } } fragment Envelope on ReportPage { total }',
      {},
    );
    expect(counts(throughFragment.statements)).toBe(1);
    server.resetQueryLog();
    const rest = await fetch(`${server.url}/public/reports/?limit=10`, { headers: { 'x-api-key': apiKey } });
    expect(((await rest.json()) as { total: number }).total).toBeGreaterThan(10);
    expect(counts(server.queries)).toBe(1);
  });
});
