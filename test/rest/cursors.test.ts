/**
 * Keyset cursors and conditional requests (issue 26), over real HTTP on both databases.
 *
 * Walks: every page of a list by `cursor` while other writes land between the pages (on
 * PostgreSQL through a second connection, on PGlite through its one connection), checked against
 * the reports that existed before the walk. The same writes make an `offset` walk repeat a row
 * (asserted): an insert at the head of the order pushes the previous page's last row onto the next page.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';

type Row = { token: string; updated_at: string; created_at: string };
type Envelope = { items: Row[]; total: number; limit: number; offset: number; next_cursor: string | null };

describe.each(DATABASE_KINDS)('cursors and conditional requests on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let organizationId: string;
  let entityId: string;
  /** Runs one write statement as another client would (a second connection where there can be one). */
  let write: (text: string, values: unknown[]) => Promise<void>;
  let closeWriter: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 300 });
    key = server.keys[0]!;
    organizationId = server.dataset.organizations[0]!.id;
    entityId = server.dataset.reports.find((r) => r.organization_id === organizationId)!.entity_id;
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      write = async (text, values) => void (await client.query(text, values));
      closeWriter = () => client.end();
    } else {
      write = async (text, values) => void (await server.db.prisma.$executeRawUnsafe(text, ...values));
    }
  }, 120_000);
  afterAll(async () => {
    await closeWriter();
    await server.close();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key, ...headers } });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text ? (JSON.parse(text) as Envelope & { detail?: unknown }) : null,
    };
  };

  const existingTokens = async (): Promise<Set<string>> => {
    const rows = await server.db.prisma.$queryRawUnsafe<{ token: string }[]>(
      `SELECT token::text AS token FROM reports WHERE organization_id = $1::uuid AND valid`,
      organizationId,
    );
    return new Set(rows.map((r) => r.token));
  };

  /** A write time later than any stored one, as the service's own writes (`@updatedAt`: the clock) are. */
  const later = async (): Promise<Date> => {
    const [row] = await server.db.prisma.$queryRawUnsafe<{ max: Date }[]>(`SELECT max(updated_at) AS max FROM reports`);
    return new Date(Math.max(Date.now(), row!.max.getTime() + 1000));
  };

  const insertReport = async () => {
    const at = await later();
    await write(
      `INSERT INTO reports (token, organization_id, entity_id, type, valid, data, state, created_at, updated_at)
       VALUES ($1::uuid, $2::uuid, $3::uuid, 'remote', true, '{}'::jsonb, '{}'::jsonb, $4, $4)`,
      [randomUUID(), organizationId, entityId, at],
    );
  };
  const touchReport = async (token: string) => {
    await write(`UPDATE reports SET updated_at = $2, state = state || '{"touched": true}'::jsonb WHERE token = $1::uuid`, [
      token,
      await later(),
    ]);
  };

  /** Every page from `first` on by following next_cursor; `between` runs before each next page. */
  async function walk(first: string, between: (seen: string[]) => Promise<void> = async () => undefined): Promise<string[]> {
    const seen: string[] = [];
    let path: string | null = first;
    while (path) {
      const page = await get(path);
      expect(page.status).toBe(200);
      seen.push(...page.body!.items.map((r) => r.token));
      const next = page.body!.next_cursor;
      if (next) {
        // The Link header names the same next page.
        expect(page.headers.get('link')).toContain(`cursor=${encodeURIComponent(next)}`);
        expect(page.headers.get('link')).toMatch(/; rel="next"$/);
        await between(seen);
      } else {
        expect(page.headers.get('link')).toBeNull();
      }
      path = next ? `${first}${first.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next)}` : null;
    }
    return seen;
  }

  const counts = (tokens: string[]) => tokens.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>());

  it('walks every report that existed before the walk exactly once while others are inserted and updated (stable keys)', async () => {
    for (const order of ['', 'order_by=created_at&', 'order_by=token&', 'order_by=-created_at&']) {
      const before = await existingTokens();
      const tokens = [...before];
      let step = 0;
      const seen = await walk(`/public/reports/?${order}limit=17`, async () => {
        await insertReport();
        // neither created_at nor token moves on an update
        await touchReport(tokens[(step++ * 7) % tokens.length]!);
      });
      const seenCounts = counts(seen);
      for (const token of before) expect([order, token, seenCounts.get(token)]).toEqual([order, token, 1]);
      expect(Math.max(...seenCounts.values())).toBe(1);
    }
  });

  it('order_by=updated_at: a report that existed before the walk is seen at least once, an untouched one exactly once', async () => {
    const before = await existingTokens();
    const tokens = [...before];
    const touched = new Set<string>();
    let step = 0;
    const seen = await walk('/public/reports/?order_by=updated_at&limit=13', async (sofar) => {
      // one row already walked past, one not yet reached: both move to the end of the order
      const past = sofar[(step * 5) % sofar.length]!;
      const ahead = tokens.find((t) => !sofar.includes(t) && !touched.has(t));
      for (const token of [past, ahead]) {
        if (!token) continue;
        touched.add(token);
        await touchReport(token);
      }
      await insertReport();
      step++;
    });
    const seenCounts = counts(seen);
    for (const token of before) {
      const times = seenCounts.get(token) ?? 0;
      expect([token, times >= 1 && times <= (touched.has(token) ? 2 : 1)]).toEqual([token, true]);
    }
    // the rows touched after they were walked past came round again: the walk saw them move
    expect([...seenCounts.values()].some((n) => n === 2)).toBe(true);
  });

  it('the offset walk repeats a row when a report is inserted at the head between pages (why cursors exist)', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 60; offset += 20) {
      const page = await get(`/public/reports/?limit=20&offset=${offset}`);
      seen.push(...page.body!.items.map((r) => r.token));
      await insertReport();
    }
    expect(new Set(seen).size).toBeLessThan(seen.length);
  });

  it('cursor pages equal one big page for every order, NULLs included (reports, users, dealerships)', async () => {
    // NULLs in every nullable sort column, and ties among them: a cursor must step over both
    const reports = [...(await existingTokens())].slice(0, 24);
    for (const [i, token] of reports.entries()) {
      const path = ['{vehicle,vin}', '{vehicle,license}', '{vehicle,specifications}'][i % 3]!;
      await write(`UPDATE reports SET data = data #- $2::text[] WHERE token = $1::uuid`, [token, path]);
      if (i % 4 === 0) await write(`UPDATE reports SET dealership_id = NULL WHERE token = $1::uuid`, [token]);
    }
    const users = server.dataset.users.filter((u) => u.organization_id === organizationId).slice(0, 6);
    for (const [i, user] of users.entries()) {
      await write(`UPDATE users SET ${i % 2 ? 'email' : 'last_activity'} = NULL WHERE id = $1::uuid`, [user.id]);
    }
    const [nulls] = await server.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM reports WHERE organization_id = $1::uuid AND valid AND (vin IS NULL OR brand IS NULL OR dealership_id IS NULL)`,
      organizationId,
    );
    expect(nulls!.n).toBeGreaterThan(8);
    const lists: [string, string[]][] = [
      [
        '/public/reports/',
        ['vin', '-vin', 'license_number', '-brand', 'brand,-created_at', 'dealership_name', '-dealership_name,vin', 'type', '-updated_at'],
      ],
      ['/public/users/', ['', 'name', '-email', 'email', 'last_activity', '-last_activity,name']],
      ['/public/dealerships/', ['', 'name', '-position', 'created_at']],
    ];
    for (const [list, orders] of lists) {
      for (const order of orders) {
        const query = order ? `order_by=${order}&` : '';
        const whole = await get(`${list}?${query}limit=1000`);
        const id = (item: Record<string, unknown>) => String(item.token ?? item.id);
        const expected = (whole.body!.items as unknown as Record<string, unknown>[]).map(id);
        const seen: string[] = [];
        let path: string | null = `${list}?${query}limit=7`;
        while (path) {
          const page = await get(path);
          expect(page.status).toBe(200);
          seen.push(...(page.body!.items as unknown as Record<string, unknown>[]).map(id));
          const next = page.body!.next_cursor;
          path = next ? `${list}?${query}limit=7&cursor=${encodeURIComponent(next)}` : null;
        }
        expect([list, order, seen]).toEqual([list, order, expected]);
      }
    }
  });

  it('refuses a forged, garbled or foreign cursor, and offset with cursor, as 422 (REST) and BAD_USER_INPUT (GraphQL)', async () => {
    const first = await get('/public/reports/?limit=5&order_by=vin');
    const cursor = first.body!.next_cursor!;
    const [payload, signature] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { k: unknown[] };
    decoded.k[0] = 'AAAAAAAAAAAAAAAAA';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    for (const bad of [forged, 'garbage', `${payload}.`, `${cursor}x`, `${cursor}.x`]) {
      const answer = await get(`/public/reports/?limit=5&order_by=vin&cursor=${encodeURIComponent(bad)}`);
      expect(answer.status).toBe(422);
      expect(answer.body!.detail).toEqual([
        { type: 'value_error', loc: ['query', 'cursor'], msg: 'Value error, cursor is not valid', input: bad, ctx: { error: {} } },
      ]);
    }
    // made for another order or other filters: refused, never a page of the wrong list
    for (const other of ['order_by=-vin', 'order_by=vin&type=remote']) {
      const answer = await get(`/public/reports/?limit=5&${other}&cursor=${encodeURIComponent(cursor)}`);
      expect(answer.status).toBe(422);
      expect((answer.body!.detail as { msg: string }[])[0]!.msg).toMatch(/another order_by or other filters/);
    }
    const users = await get('/public/users/?limit=5');
    expect((await get(`/public/reports/?limit=5&cursor=${encodeURIComponent(users.body!.next_cursor!)}`)).status).toBe(422);
    const withOffset = await get(`/public/reports/?limit=5&order_by=vin&offset=5&cursor=${encodeURIComponent(cursor)}`);
    expect(withOffset.status).toBe(422);
    expect((withOffset.body!.detail as { loc: string[] }[])[0]!.loc).toEqual(['query', 'offset']);

    const answer = await graphql(server, 'query($c: String) { reports(cursor: $c, limit: 5) { total } }', { c: forged }, key);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('GraphQL pages by pageInfo { endCursor hasNextPage } beside items, total, limit, offset', async () => {
    const query = `query($after: String) { users(limit: 4, cursor: $after) {
      items { id } total limit offset pageInfo { endCursor hasNextPage } } }`;
    type Answer = { users: { items: { id: string }[]; total: number; pageInfo: { endCursor: string | null; hasNextPage: boolean } } };
    const seen: string[] = [];
    let after: string | null = null;
    let total = 0;
    for (;;) {
      const answer = await graphql<Answer>(server, query, { after }, key);
      expect(answer.body.errors).toBeUndefined();
      const page: Answer['users'] = answer.body.data!.users;
      total = page.total;
      seen.push(...page.items.map((u) => u.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(total);
    expect(seen.length).toBe(total);

    // one cursor, either interface: REST's next_cursor continues the same list over GraphQL
    const rest = await get('/public/reports/?limit=3&order_by=-vin&type=remote');
    const restNext = await get(`/public/reports/?limit=3&order_by=-vin&type=remote&cursor=${encodeURIComponent(rest.body!.next_cursor!)}`);
    const overGraphql = await graphql<{ reports: { items: { token: string }[] } }>(
      server,
      'query($c: String) { reports(limit: 3, order_by: "-vin", type: remote, cursor: $c) { items { token } } }',
      { c: rest.body!.next_cursor },
      key,
    );
    expect(overGraphql.body.errors).toBeUndefined();
    expect(overGraphql.body.data!.reports.items.map((r) => r.token)).toEqual(restNext.body!.items.map((r) => r.token));
  });

  it('fetch-one: a strong ETag, 304 on If-None-Match without loading the document, a new ETag after an update', async () => {
    const token = server.dataset.reports.find((r) => r.organization_id === organizationId)!.token;
    server.resetQueryLog();
    const first = await get(`/public/reports/${token}`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    // Without If-None-Match the ETag comes with the answer (the row's version, read by the statement
    // that writes it): one statement, no version probe.
    expect(server.queries.filter((q) => /SELECT r\.xmin::text AS version FROM reports r WHERE/.test(q))).toEqual([]);
    expect(server.queries.filter((q) => q.includes('r.typed_data'))).toHaveLength(1);
    // ...and it is the ETag the probe gives when If-None-Match is sent (a 200 for another tag).
    const probed = await get(`/public/reports/${token}`, { 'if-none-match': '"another"' });
    expect(probed.status).toBe(200);
    expect(probed.headers.get('etag')).toBe(etag);

    server.resetQueryLog();
    const again = await get(`/public/reports/${token}`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    // one probe of the row's version; the document was never read
    expect(server.queries.filter((q) => q.includes('typed_data') || q.includes('r.data'))).toEqual([]);
    expect((await get(`/public/reports/${token}`, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(`/public/reports/${token}`, { 'if-none-match': '"other"' })).status).toBe(200);

    await touchReport(token);
    const changed = await get(`/public/reports/${token}`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((await get(`/public/reports/${token}`, { 'if-none-match': changed.headers.get('etag')! })).status).toBe(304);

    const userId = server.dataset.users.find((u) => u.organization_id === organizationId)!.id;
    const user = await get(`/public/users/${userId}`);
    expect(user.headers.get('etag')).toMatch(/^"/);
    expect((await get(`/public/users/${userId}`, { 'if-none-match': user.headers.get('etag')! })).status).toBe(304);
    await write(`UPDATE users SET name = name || '!', updated_at = $2 WHERE id = $1::uuid`, [userId, await later()]);
    expect((await get(`/public/users/${userId}`, { 'if-none-match': user.headers.get('etag')! })).status).toBe(200);

    // another organization's report: 404, no ETag that would reveal it exists
    const foreign = server.dataset.reports.find((r) => r.organization_id !== organizationId)!.token;
    const missing = await get(`/public/reports/${foreign}`, { 'if-none-match': '*' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});
