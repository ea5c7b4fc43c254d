/**
 * A full report's REST body kept once built (api/rest/stored-answers.ts), over real HTTP on both
 * databases: the kept body is the typed one byte for byte, and equals what GraphQL answers for
 * the route's selection when it executes it (an oracle outside the REST path); GraphQL serves it
 * for a document selecting just that; it is served only while the row
 * and the shape it was built from are current; a write of any kind to the row, a new shape or a
 * deleted report make it go.
 */
import { print } from 'graphql';
import pg from 'pg';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { reportRouteSelection } from '../../src/api/stored-answers';
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { SeededRandom } from '../../src/seed/vehicles';

type Kept = { row_version: string; shape: string; body: string; xmin: string };

describe.each(DATABASE_KINDS)('stored report answers on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let organizationId: string;
  /** the REST route's selection of a report, printed */
  let selection: string;
  let executedDocument: string;
  /** Runs one statement as another client would (a second connection where there can be one). */
  let sql: <T = unknown>(text: string, values?: unknown[]) => Promise<T[]>;
  let closeClient: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 120 });
    key = server.keys[0]!;
    organizationId = server.dataset.organizations[0]!.id;
    selection = print(reportRouteSelection(await buildAppSchema()));
    executedDocument = `query ($report_id: UUID!) { report(report_id: $report_id) ${selection} __typename }`;
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      sql = async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows as T[];
      closeClient = () => client.end();
    } else {
      sql = <T>(text: string, values: unknown[] = []) => server.db.prisma.$queryRawUnsafe<T[]>(text, ...values);
    }
  }, 120_000);
  afterAll(async () => {
    await closeClient();
    await server.close();
  });

  const fetchReport = async (token: string, headers: Record<string, string> = {}, apiKey = key) => {
    const response = await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': apiKey, ...headers } });
    return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
  };
  const kept = async (token: string): Promise<Kept | undefined> =>
    (
      await sql<Kept>(
        `SELECT a.row_version::text AS row_version, a.shape, a.body, r.xmin::text AS xmin
         FROM report_answers a JOIN reports r USING (token) WHERE a.token = $1::uuid`,
        [token],
      )
    )[0];
  /** Waits until the body built from the row's current version is kept (written after the answer went out). */
  const keptCurrent = (token: string): Promise<Kept> =>
    waitFor(async () => {
      const row = await kept(token);
      return row && row.row_version === row.xmin ? row : undefined;
    }) as Promise<Kept>;
  /**
   * GraphQL's answer to the route's selection, executed (a second root field keeps it from the
   * kept answers), written as REST writes it.
   */
  const overGraphql = async (token: string) => {
    const result = await graphql<{ report: unknown }>(server, executedDocument, { report_id: token }, key);
    return { errors: result.body.errors, text: JSON.stringify(result.body.data?.report) };
  };
  /** GraphQL's answer, as written, to a document selecting `report` (under `alias`) as REST does. */
  const graphqlText = async (token: string, alias = '') => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: `query ($id: UUID!) { ${alias}report(report_id: $id) ${selection} }`, variables: { id: token } }),
    });
    return { status: response.status, text: await response.text() };
  };
  /** Builds a report's answer twice (the second build of a row version keeps it), equal both times. */
  const buildTwice = async (token: string) => {
    const first = await fetchReport(token);
    expect(await fetchReport(token)).toEqual(first);
    return first;
  };
  const tokens = () => server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);

  it('keeps the typed body byte for byte and serves it, for every report of the organization, equal to GraphQL’s', async () => {
    const all = tokens();
    expect(all.length).toBeGreaterThan(20);
    for (const token of all) {
      const built = await buildTwice(token);
      expect(built.status).toBe(200);
      const row = await keptCurrent(token);
      expect(row.body).toBe(built.text);
      const served = await fetchReport(token);
      expect(served).toEqual(built);
      expect((await overGraphql(token)).text).toBe(built.text);
    }
  });

  it('serves the kept body only while the row it was built from is current: any write builds it again', async () => {
    const [token] = tokens();
    const original = await buildTwice(token!);
    await keptCurrent(token!);
    // What is served is what the table holds...
    await sql(`UPDATE report_answers SET body = '{"kept":true}' WHERE token = $1::uuid`, [token]);
    expect((await fetchReport(token!)).text).toBe('{"kept":true}');
    // ...until the row is written, even by a statement that changes no value and moves no updated_at.
    await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
    const rebuilt = await buildTwice(token!);
    expect(rebuilt).toEqual(original);
    expect((await keptCurrent(token!)).body).toBe(original.text);

    // A write from outside the API (no updated_at) changes the document: the next answer has it.
    await sql(`UPDATE reports SET data = jsonb_set(data, '{vehicle,vin}', '"WVWZZZ1JZXW000001"') WHERE token = $1::uuid`, [token]);
    const changed = await buildTwice(token!);
    expect(changed.status).toBe(200);
    expect(JSON.parse(changed.text).data.vehicle.vin).toBe('WVWZZZ1JZXW000001');
    expect(changed.text).toBe((await overGraphql(token!)).text);
    expect((await keptCurrent(token!)).body).toBe(changed.text);
    expect((await fetchReport(token!)).text).toBe(changed.text);
  });

  it('keeps a row version’s body only when it is built a second time: a version read once costs no write', async () => {
    const token = tokens()[5]!;
    const notKeptNow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const row = await kept(token);
      return row === undefined || row.row_version !== row.xmin;
    };
    // a version nobody has read yet (the first test read every report's earlier one)
    await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
    const once = await fetchReport(token);
    expect(await notKeptNow()).toBe(true);
    expect(await fetchReport(token)).toEqual(once);
    expect((await keptCurrent(token)).body).toBe(once.text);
    // a newer version starts again
    await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
    expect(await fetchReport(token)).toEqual(once);
    expect(await notKeptNow()).toBe(true);
  });

  it('builds the body again for another shape (a release whose answers differ), and keeps the new one', async () => {
    const token = tokens()[1]!;
    const built = await buildTwice(token);
    const row = await keptCurrent(token);
    await sql(`UPDATE report_answers SET shape = 'an earlier release', body = '{"stale":true}' WHERE token = $1::uuid`, [token]);
    expect(await buildTwice(token)).toEqual(built);
    const again = (await waitFor(async () => {
      const current = await keptCurrent(token);
      return current.shape === row.shape ? current : undefined;
    })) as Kept;
    expect(again.body).toBe(built.text);
  });

  it('never serves another organization’s report, kept or not; a deleted report takes its body with it', async () => {
    const token = tokens()[2]!;
    await buildTwice(token);
    await keptCurrent(token);
    const otherKey = server.keys[1]!;
    const foreign = await fetchReport(token, {}, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.etag).toBeNull();

    await sql(`DELETE FROM reports WHERE token = $1::uuid`, [token]);
    expect(await kept(token)).toBeUndefined();
    expect((await fetchReport(token)).status).toBe(404);
  });

  it('conditional requests: a 304 on the kept version’s ETag, the kept body with the same ETag otherwise', async () => {
    const token = tokens()[3]!;
    const built = await buildTwice(token);
    await keptCurrent(token);
    expect((await fetchReport(token, { 'if-none-match': built.etag! })).status).toBe(304);
    const other = await fetchReport(token, { 'if-none-match': '"another"' });
    expect(other).toEqual({ ...built, etag: built.etag });
  });

  it('GraphQL: a report query selecting what REST selects is answered with the kept body, and keeps it', async () => {
    const token = tokens()[4]!;
    const rest = await buildTwice(token);
    await keptCurrent(token);
    expect(await graphqlText(token)).toEqual({ status: 200, text: `{"data":{"report":${rest.text}}}\n` });
    expect(await graphqlText(token, 'full: ')).toEqual({ status: 200, text: `{"data":{"full":${rest.text}}}\n` });
    // what is served is what the table holds, for this selection only
    await sql(`UPDATE report_answers SET body = '{"kept":true}' WHERE token = $1::uuid`, [token]);
    expect((await graphqlText(token)).text).toBe('{"data":{"report":{"kept":true}}}\n');
    const narrower = await graphql<{ report: { token: string } }>(
      server,
      `
        query ($id: UUID!) {
          report(report_id: $id) {
            token
          }
        }
      `,
      { id: token },
      key,
    );
    expect(narrower.body).toEqual({ data: { report: { token } } });
    // a write builds it again, executed; and GraphQL's second build keeps it for both interfaces
    await sql(`UPDATE reports SET valid = valid WHERE token = $1::uuid`, [token]);
    expect(await graphqlText(token)).toEqual({ status: 200, text: `{"data":{"report":${rest.text}}}\n` });
    expect(await graphqlText(token)).toEqual({ status: 200, text: `{"data":{"report":${rest.text}}}\n` });
    expect((await keptCurrent(token)).body).toBe(rest.text);
    expect(await fetchReport(token)).toEqual(rest);
    // another organization's key: the NOT_FOUND error, kept or not
    const foreign = await graphql(server, `query ($id: UUID!) { report(report_id: $id) ${selection} }`, { id: token }, server.keys[1]!);
    expect(foreign.body.data).toEqual({ report: null });
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  // Value classes a stored document may hold that the schema does not declare: the kept body is
  // the typed one (coerced, nulled, undeclared keys dropped), equal to GraphQL's; a document the
  // typed path refuses is never kept.
  const oddDocuments: [string, string][] = [
    ['a number where a string is declared', `jsonb_set(data, '{vehicle,vin}', '12345')`],
    ['a numeric string where a number is declared', `jsonb_set(data, '{vehicle,specifications,year}', '"2015"')`],
    ['the largest double', `jsonb_set(data, '{vehicle,specifications,year}', '1.7976931348623157e308')`],
    [
      'line separators, astral characters and escapes',
      `jsonb_set(data, '{vehicle,specifications,brand}', to_jsonb(E'Ünï\\u2028 😀 "q" \\\\ </script>'::text))`,
    ],
    ['an undeclared nested key', `jsonb_set(data, '{vehicle,undeclared}', '{"a":[1,{"b":null}]}')`],
    ['a missing object', `data #- '{vehicle,specifications}'`],
    ['an empty document', `'{}'::jsonb`],
    ['a string where an object is declared', `jsonb_set(data, '{vehicle,specifications}', '"not an object"')`],
    ['a boolean where a number is declared', `jsonb_set(data, '{vehicle,specifications,year}', 'true')`],
  ];
  // Generated: a seeded random leaf of a stored document, set to a random value class (FUZZ_SEED
  // picks another run). Each case: typed body = GraphQL's executed answer; kept only when 200.
  const VALUE_CLASSES: unknown[] = [
    0,
    -1.5,
    1.7976931348623157e308,
    2147483648,
    '',
    'x',
    '2015',
    'NaN',
    '\u2028😀</script>',
    true,
    false,
    null,
    {},
    [],
    { a: 1 },
    [1, 'a', null],
    [[]],
  ];
  const leafPaths = (value: unknown, path: string[] = []): string[][] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]))
      : [path];
  it('generated documents: a random leaf set to a random value class, 24 times', async () => {
    const random = new SeededRandom(Number(process.env.FUZZ_SEED) || 27);
    const candidates = tokens().slice(30, 54);
    const outcomes = { kept: 0, refused: 0 };
    for (const token of candidates) {
      const [{ data }] = await sql<{ data: unknown }>(`SELECT data FROM reports WHERE token = $1::uuid`, [token]);
      const path = random.pick(leafPaths(data).filter((p) => p.length > 0));
      const value = random.pick(VALUE_CLASSES);
      await sql(`UPDATE reports SET data = jsonb_set(data, $2::text[], $3::jsonb) WHERE token = $1::uuid`, [
        token,
        path,
        JSON.stringify(value),
      ]);
      const built = await fetchReport(token);
      expect(await fetchReport(token)).toEqual(built);
      const oracle = await overGraphql(token);
      const what = `${path.join('.')} = ${JSON.stringify(value)}`;
      if (oracle.errors) {
        expect([what, built.status === 200]).toEqual([what, false]);
        outcomes.refused += 1;
        continue;
      }
      expect([what, built.status, built.text]).toEqual([what, 200, oracle.text]);
      expect((await keptCurrent(token)).body).toBe(built.text);
      expect(await fetchReport(token)).toEqual(built);
      outcomes.kept += 1;
    }
    // the value classes reach both outcomes: answered (coerced, nulled) and refused
    expect(outcomes.kept).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it.each(oddDocuments)('%s: the kept body is the typed one, or none is kept', async (_name, expression) => {
    const token = tokens()[10 + oddDocuments.findIndex(([name]) => name === _name)]!;
    await sql(`UPDATE reports SET data = ${expression} WHERE token = $1::uuid`, [token]);
    const built = await fetchReport(token);
    expect(await fetchReport(token)).toEqual(built);
    const oracle = await overGraphql(token);
    if (oracle.errors) {
      expect(built.status).not.toBe(200);
      // still nothing kept a moment later (the write would follow the answer at once)
      await new Promise((resolve) => setTimeout(resolve, 200));
      const row = await kept(token);
      expect(row === undefined || row.row_version !== row.xmin).toBe(true);
      return;
    }
    expect(built.status).toBe(200);
    expect(built.text).toBe(oracle.text);
    expect((await keptCurrent(token)).body).toBe(built.text);
    expect(await fetchReport(token)).toEqual(built);
  });
});
