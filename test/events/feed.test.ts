/**
 * The change feed (docs/events.md): events written by triggers in the writing transaction, read
 * in commit order with a cursor that never skips or repeats one, even when transactions commit
 * out of order; one organization never sees another's; bad cursors and filters are 422.
 */
import pg from 'pg';
import { decodeCursor } from '../../src/features/events/event-cursor';
import { pruneEvents } from '../../src/features/events/events.service';
import { DATABASE_KINDS } from '../support/databases';
import type { PushedEvent } from '../support/subscriptions';
import { waitFor } from '../support/wait';
import { graphql, startTestServer, type TestServer } from '../support/server';

/** An event as the feed answers it: the same shape a subscription pushes. */
type FeedEvent = PushedEvent;
interface FeedPage {
  items: FeedEvent[];
  next: string;
}

async function feedPage(server: TestServer, key: string, query: Record<string, string | number> = {}): Promise<FeedPage> {
  const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const response = await fetch(`${server.url}/public/events/?${params}`, { headers: { 'x-api-key': key } });
  expect(response.status).toBe(200);
  return (await response.json()) as FeedPage;
}

/** Every event visible after `after`, page by page; returns them and the last `next`. */
async function readAll(server: TestServer, key: string, after = '', limit = 1000): Promise<{ events: FeedEvent[]; next: string }> {
  const events: FeedEvent[] = [];
  let next = after;
  for (;;) {
    const page = await feedPage(server, key, { ...(next ? { after: next } : {}), limit });
    events.push(...page.items);
    next = page.next;
    if (page.items.length < limit) return { events, next };
  }
}

/**
 * Reads until at least `count` events have shown up: the feed's horizon is the cluster's oldest
 * running transaction, which another database's (other suites on the same server) may hold back
 * for a moment.
 */
async function readAtLeast(server: TestServer, key: string, after: string, count: number, limit = 1000) {
  const events: FeedEvent[] = [];
  let next = after;
  await waitFor(async () => {
    const page = await readAll(server, key, next, limit);
    events.push(...page.events);
    next = page.next;
    return events.length >= count || undefined;
  }, 20_000);
  return { events, next };
}

/**
 * Every event committed so far and the `next` after them. A test that reads "from now on" starts
 * here: a plain read's `next` is the horizon, which a transaction running elsewhere on the server
 * (another suite's database) may hold below events committed before, and those would show up
 * later. Waits until the horizon has passed a transaction id taken now, above every earlier one.
 */
async function readSettled(server: TestServer, key: string): Promise<{ events: FeedEvent[]; next: string }> {
  const [taken] = await server.db.prisma.$queryRawUnsafe<{ xid: string }[]>('SELECT pg_current_xact_id()::text AS xid');
  const now = BigInt(taken!.xid);
  return (await waitFor(async () => {
    const read = await readAll(server, key);
    return decodeCursor(read.next)!.xid > now ? read : undefined;
  }, 20_000))!;
}

describe.each(DATABASE_KINDS)('change feed on %s', (kind) => {
  let server: TestServer;
  let keyA: string;
  let keyB: string;
  let orgA: string;
  let orgB: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 40 });
    keyA = server.keys[0]!;
    keyB = server.keys[1]!;
    orgA = server.dataset.organizations[0]!.id;
    orgB = server.dataset.organizations[1]!.id;
  }, 120_000);
  afterAll(() => server?.close());

  const tokensOf = (organizationId: string) =>
    server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);

  it("starts with one report.created per report of the key's organization, and none of another's", async () => {
    const { events } = await readAtLeast(server, keyA, '', tokensOf(orgA).length, 7);
    const created = events.filter((e) => e.type === 'report.created').map((e) => e.subject);
    expect(created.sort()).toEqual(tokensOf(orgA).sort());
    const others = new Set(tokensOf(orgB));
    expect(events.some((e) => others.has(e.subject))).toBe(false);
    // Paging never repeats an event.
    expect(new Set(events.map((e) => e.cursor)).size).toBe(events.length);
    const fromB = await readAtLeast(server, keyB, '', tokensOf(orgB).length);
    expect(
      fromB.events
        .filter((e) => e.type === 'report.created')
        .map((e) => e.subject)
        .sort(),
    ).toEqual(tokensOf(orgB).sort());
  });

  it('shows a report changed by plain SQL once, with the state step that appeared', async () => {
    const { next } = await readSettled(server, keyA);
    const token = tokensOf(orgA)[0]!;
    // As the inspection application would write it: plain SQL, no API involved.
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE reports SET state = jsonb_set(state, '{folder_sold}', '{"name":"Sold","status":true,"date":"2026-11-25T10:00:00.000Z"}'),
         data = jsonb_set(data, '{metadata,comment}', '"sold by phone"'), updated_at = now()
       WHERE token = $1::uuid`,
      token,
    );
    const after = await readAtLeast(server, keyA, next, 2);
    expect(after.events.map((e) => [e.type, e.subject])).toEqual([
      ['report.updated', token],
      ['report.folder_sold', token],
    ]);
    expect(after.events[0]!.payload).toEqual({ changed: ['data', 'state'] });
    expect(after.events[1]!.payload).toEqual({ step: 'folder_sold', status: true, date: '2026-11-25T10:00:00.000Z' });
    // Read again from there: nothing new (the cursor may move past transactions that wrote none).
    const again = await feedPage(server, keyA, { after: after.next });
    expect(again.items).toEqual([]);
    // An update that changes nothing (only updated_at) is no event.
    await server.db.prisma.$executeRawUnsafe(`UPDATE reports SET updated_at = now() WHERE token = $1::uuid`, token);
    expect((await feedPage(server, keyA, { after: after.next })).items).toEqual([]);
  });

  it('writes one event per changed report for a bulk statement, filtered by type on request', async () => {
    const { next } = await readSettled(server, keyA);
    const changed = await server.db.prisma.$executeRawUnsafe(`UPDATE reports SET valid = NOT valid WHERE organization_id = $1::uuid`, orgA);
    expect(changed).toBe(tokensOf(orgA).length);
    const { events } = await readAtLeast(server, keyA, next, 2 * changed, 9);
    const validity = events.filter((e) => e.type === 'report.validity_changed').map((e) => e.subject);
    expect(validity.sort()).toEqual(tokensOf(orgA).sort());
    expect(events.filter((e) => e.type === 'report.updated')).toHaveLength(changed);
    expect(events).toHaveLength(2 * changed);
    const onlyValidity = await feedPage(server, keyA, { after: next, types: 'report.validity_changed' });
    expect(onlyValidity.items.map((e) => e.cursor)).toEqual(
      events.filter((e) => e.type === 'report.validity_changed').map((e) => e.cursor),
    );
    await server.db.prisma.$executeRawUnsafe(`UPDATE reports SET valid = NOT valid WHERE organization_id = $1::uuid`, orgA);
  });

  it("records a notification's final outcome (delivered, failed), not its retries", async () => {
    const { next } = await readSettled(server, keyA);
    const token = tokensOf(orgA)[1]!;
    const ids = await server.db.prisma.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO notification_outbox (id, report_token, organization_id, channel, recipient, payload, updated_at)
       VALUES (gen_random_uuid(), $1::uuid, $2::uuid, 'email', 'a@example.com', '{}', now()),
              (gen_random_uuid(), $1::uuid, $2::uuid, 'sms', '+33600000000', '{}', now())
       RETURNING id::text AS id`,
      token,
      orgA,
    );
    const [email, sms] = ids.map((r) => r.id);
    await server.db.prisma.$executeRawUnsafe(`UPDATE notification_outbox SET attempts = 1, last_error = 'busy' WHERE id = $1::uuid`, sms);
    await server.db.prisma.$executeRawUnsafe(`UPDATE notification_outbox SET status = 'sent', attempts = 1 WHERE id = $1::uuid`, email);
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE notification_outbox SET status = 'failed', attempts = 8, last_error = 'provider said no' WHERE id = $1::uuid`,
      sms,
    );
    const types = 'notification.delivered,notification.failed';
    const events = (await waitFor(async () => {
      const page = await feedPage(server, keyA, { after: next, types });
      return page.items.length >= 2 ? page.items : undefined;
    }, 20_000))!;
    expect(events.map((e) => [e.type, e.subject, e.payload])).toEqual([
      ['notification.delivered', token, { notification_id: email, channel: 'email', attempts: 1 }],
      ['notification.failed', token, { notification_id: sms, channel: 'sms', attempts: 8, error: 'provider said no' }],
    ]);
  });

  it('answers the same through GraphQL', async () => {
    const rest = await feedPage(server, keyA, { limit: 5 });
    const result = await graphql<{ events: FeedPage }>(
      server,
      'query($after: String, $limit: Int) { events(after: $after, limit: $limit) { items { cursor position type subject occurred_at payload } next } }',
      { limit: 5 },
      keyA,
    );
    expect(result.status).toBe(200);
    expect(result.body.data!.events).toEqual(rest);
  });

  it('prunes events older than the retention, and only those', async () => {
    const { events } = await readSettled(server, keyA);
    const old = events.slice(0, 3).map((e) => e.position);
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE events SET occurred_at = now() - interval '31 days' WHERE position = ANY($1::bigint[])`,
      old,
    );
    const before = await server.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events');
    expect(await pruneEvents(server.db.prisma, 30, 2)).toBe(3);
    const after = await server.db.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events');
    expect(after[0]!.n).toBe(before[0]!.n - 3);
    const remaining = (await readAll(server, keyA)).events.map((e) => e.position);
    expect(remaining.filter((p) => old.includes(p))).toEqual([]);
    expect(remaining).toEqual(events.slice(3).map((e) => e.position));
  });

  it.each([
    ['a garbled cursor', { after: 'not a cursor!' }, 'after'],
    ['a forged cursor', { after: Buffer.from('12.x').toString('base64url') }, 'after'],
    ['a non-canonical cursor', { after: Buffer.from('012.3').toString('base64url') }, 'after'],
    ['an out-of-range cursor', { after: Buffer.from(`${2n ** 64n}.1`).toString('base64url') }, 'after'],
    ['an unknown type', { types: 'report.created,report.exploded' }, 'types'],
    ['a zero limit', { limit: 0 }, 'limit'],
    ['a limit above 1000', { limit: 1001 }, 'limit'],
  ])('refuses %s with 422 (REST) and BAD_USER_INPUT (GraphQL)', async (_name, query, field) => {
    const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
    const response = await fetch(`${server.url}/public/events/?${params}`, { headers: { 'x-api-key': keyA } });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail[0]!.loc).toEqual(['query', field]);
    const result = await graphql(
      server,
      'query($after: String, $limit: Int, $types: String) { events(after: $after, limit: $limit, types: $types) { next } }',
      query,
      keyA,
    );
    expect(result.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('change feed on postgres, transactions committing out of order', () => {
  let server: TestServer;
  let key: string;
  let tokens: string[];

  beforeAll(async () => {
    server = await startTestServer('postgres', { reports: 20 });
    key = server.keys[0]!;
    const organizationId = server.dataset.organizations[0]!.id;
    tokens = server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);
  }, 120_000);
  afterAll(() => server?.close());

  const touch = (client: pg.Client, token: string, value: number) =>
    client.query(`UPDATE reports SET data = jsonb_set(data, '{metadata,touch}', to_jsonb($2::int)) WHERE token = $1::uuid`, [token, value]);

  it('does not skip the event of a transaction that started first and commits last', async () => {
    const first = new pg.Client({ connectionString: server.databaseUrl });
    const second = new pg.Client({ connectionString: server.databaseUrl });
    await Promise.all([first.connect(), second.connect()]);
    try {
      let { next } = await readSettled(server, key);
      const seen: FeedEvent[] = [];
      await first.query('BEGIN');
      await touch(first, tokens[0]!, 1); // the smaller position
      await second.query('BEGIN');
      await touch(second, tokens[1]!, 2); // a larger position, committed first
      await second.query('COMMIT');
      // A naive "position > last seen" reader would now see tokens[1] and later skip tokens[0].
      let page = await readAll(server, key, next);
      seen.push(...page.events);
      next = page.next;
      await first.query('COMMIT');
      await waitFor(async () => {
        page = await readAll(server, key, next);
        seen.push(...page.events);
        next = page.next;
        return seen.length >= 2 || undefined;
      });
      expect(seen.map((e) => e.subject).sort()).toEqual([tokens[0]!, tokens[1]!].sort());
      expect(new Set(seen.map((e) => e.cursor)).size).toBe(seen.length);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it('a reader polling while writers commit in random order sees every event exactly once', async () => {
    const writers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = new pg.Client({ connectionString: server.databaseUrl });
        await client.connect();
        return client;
      }),
    );
    try {
      let { next } = await readSettled(server, key);
      const seen: FeedEvent[] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) {
          const page = await readAll(server, key, next, 50);
          seen.push(...page.events);
          next = page.next;
        }
      })();
      // Values no earlier test wrote: an update writing the same value changes nothing (no event).
      let counter = 1000;
      const written: number[] = [];
      await Promise.all(
        writers.map(async (client, w) => {
          for (let i = 0; i < 15; i++) {
            const value = ++counter;
            await client.query('BEGIN');
            await touch(client, tokens[(w * 15 + i) % tokens.length]!, value);
            // Hold some transactions open so that later ones commit first.
            await new Promise((resolve) => setTimeout(resolve, (value * 7919) % 23));
            await client.query('COMMIT');
            written.push(value);
          }
        }),
      );
      writing = false;
      await reader;
      // The horizon is the cluster's oldest running transaction: another database's (other test
      // suites) may hold it back for a moment, so read until everything written has shown up.
      await waitFor(async () => {
        const page = await readAll(server, key, next);
        seen.push(...page.events);
        next = page.next;
        return seen.filter((e) => e.type === 'report.updated').length >= 60 || undefined;
      }, 20_000);
      expect(written).toHaveLength(60);
      expect(seen.filter((e) => e.type === 'report.updated')).toHaveLength(60);
      expect(new Set(seen.map((e) => e.cursor)).size).toBe(seen.length);
    } finally {
      await Promise.all(writers.map((client) => client.end()));
    }
  }, 60_000);
});
