/**
 * GraphQL subscriptions of the change feed over graphql-ws (docs/events.md, "Subscriptions"): a
 * change made by plain SQL is pushed; `events(after:)` replays what was missed, then goes on live,
 * none skipped or repeated; another organization's events never appear; a wrong key closes the
 * socket with 4403; subscriptions are bounded per organization; a subscription in one API
 * instance hears events written through another (LISTEN/NOTIFY, PostgreSQL).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pg from 'pg';
import { createApp } from '../../src/app/create-app';
import { openDatabase, type Database } from '../../src/platform/db/database';
import { createHttpServer } from '../../src/platform/http/http-server';
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { closeAfterInit, closeAfterMessage, subscribe, subscriptionClient, type PushedEvent } from '../support/subscriptions';
import { waitFor } from '../support/wait';

const FIELDS = 'cursor position type subject occurred_at payload';

/** The feed (GraphQL query) after `after`, every page. */
async function feed(server: { url: string }, key: string, after: string, types?: string): Promise<{ items: PushedEvent[]; next: string }> {
  const items: PushedEvent[] = [];
  let next = after;
  for (;;) {
    const page = await graphql<{ events: { items: PushedEvent[]; next: string } }>(
      server,
      `query($after: String, $types: String) { events(after: $after, limit: 1000, types: $types) { items { ${FIELDS} } next } }`,
      { after: next || null, types: types ?? null },
      key,
    );
    expect(page.body.errors).toBeUndefined();
    items.push(...page.body.data!.events.items);
    next = page.body.data!.events.next;
    if (page.body.data!.events.items.length < 1000) return { items, next };
  }
}

const touchSql = `UPDATE reports SET data = jsonb_set(data, '{metadata,touch}', to_jsonb($2::int)) WHERE token = $1::uuid`;

describe.each(DATABASE_KINDS)('change feed subscriptions on %s', (kind) => {
  let server: TestServer;
  let keyA: string;
  let keyB: string;
  let orgA: string;
  let orgB: string;
  /** Plain SQL, as the inspection application writes (its own connection on PostgreSQL). */
  let sql: (text: string, ...values: unknown[]) => Promise<unknown>;
  let sqlClient: pg.Client | undefined;
  let touches = 0;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      reports: 40,
      config: {
        subscriptions: { perOrganization: 3, perSocket: 10, maxMessageBytes: 64 * 1024, pollMs: 60_000, pollWithoutNotificationsMs: 500 },
      },
    });
    keyA = server.keys[0]!;
    keyB = server.keys[1]!;
    orgA = server.dataset.organizations[0]!.id;
    orgB = server.dataset.organizations[1]!.id;
    if (server.databaseUrl) {
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      sqlClient = client;
      sql = (text, ...values) => client.query(text, values);
    } else {
      sql = (text, ...values) => server.db.prisma.$executeRawUnsafe(text, ...values);
    }
  }, 120_000);
  afterAll(async () => {
    await sqlClient?.end();
    await server?.close();
  });

  const tokensOf = (organizationId: string) =>
    server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);
  const touch = (token: string) => sql(touchSql, token, ++touches);

  it('pushes a change made by plain SQL to reportChanged, with its cursor', async () => {
    const client = subscriptionClient(server, { 'x-api-key': keyA });
    try {
      const sub = subscribe(client, `subscription { reportChanged(types: ["report.validity_changed"]) { ${FIELDS} } }`);
      const token = tokensOf(orgA)[0]!;
      // reportChanged starts at the feed's end when the server starts reading: change until one arrives.
      await waitFor(
        async () => {
          await sql(`UPDATE reports SET valid = NOT valid WHERE token = $1::uuid`, token);
          return sub.events.length > 0 || undefined;
        },
        20_000,
        500,
      );
      expect(sub.errors).toEqual([]);
      expect(sub.events[0]).toMatchObject({ type: 'report.validity_changed', subject: token });
      expect(typeof sub.events[0]!.payload.valid).toBe('boolean');
      // The cursor is the feed's: reading the feed after it gives what follows, not the event itself.
      const after = await feed(server, keyA, sub.events[0]!.cursor, 'report.validity_changed');
      expect(after.items.map((e) => e.cursor)).not.toContain(sub.events[0]!.cursor);
    } finally {
      await client.dispose();
    }
  });

  it('events(after:) replays what was written while disconnected, in order, then live ones, none skipped or repeated', async () => {
    // Tokens no other test touches: an earlier test's event may still come after `start` (the
    // horizon it is read at may have held it back), so only these are counted.
    const mine = tokensOf(orgA).slice(10, 15);
    const [t0, t1, t2, t3, t4] = mine;
    const ofMine = (events: PushedEvent[]) => events.filter((e) => mine.includes(e.subject));
    const { next: start } = await feed(server, keyA, '');
    const query = `subscription($after: String) { events(after: $after, types: ["report.updated"]) { ${FIELDS} } }`;
    const first = subscriptionClient(server, { 'x-api-key': keyA });
    const sub1 = subscribe(first, query, { after: start });
    await touch(t0!);
    await waitFor(() => ofMine(sub1.events).length > 0 || undefined, 20_000);
    const seen = ofMine(sub1.events)[0]!;
    expect(seen).toMatchObject({ type: 'report.updated', subject: t0 });
    await first.dispose();

    // Written while no one listens.
    await touch(t1!);
    await touch(t2!);
    await sql(`UPDATE reports SET data = jsonb_set(data, '{metadata,bulk}', '1') WHERE token = ANY($1::uuid[])`, [t3!, t4!]);

    const second = subscriptionClient(server, { apiKey: keyA });
    try {
      const sub2 = subscribe(second, query, { after: seen.cursor });
      await waitFor(() => ofMine(sub2.events).length >= 4 || undefined, 20_000);
      await touch(t0!); // live
      await waitFor(() => ofMine(sub2.events).length >= 5 || undefined, 20_000);
      expect(sub2.errors).toEqual([]);
      const subjects = ofMine(sub2.events).map((e) => e.subject);
      expect(subjects.slice(0, 2)).toEqual([t1, t2]);
      expect(new Set(subjects.slice(2, 4))).toEqual(new Set([t3, t4]));
      expect(subjects[4]).toBe(t0);
      // Exactly the feed read from the same cursor: same events, same order, nothing more.
      const expected = await feed(server, keyA, seen.cursor, 'report.updated');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sub2.events.map((e) => e.cursor)).toEqual(expected.items.map((e) => e.cursor));
      expect(new Set(sub2.events.map((e) => e.cursor)).size).toBe(sub2.events.length);
    } finally {
      await second.dispose();
    }
  });

  it("never pushes another organization's events", async () => {
    const { next: startB } = await feed(server, keyB, '');
    const clientB = subscriptionClient(server, { 'x-api-key': keyB });
    try {
      const sub = subscribe(clientB, `subscription($after: String) { events(after: $after) { ${FIELDS} } }`, { after: startB });
      await touch(tokensOf(orgA)[5]!);
      await touch(tokensOf(orgA)[6]!);
      await touch(tokensOf(orgB)[0]!);
      await sub.waitForEvents(1);
      await touch(tokensOf(orgA)[7]!);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const ownTokens = new Set(tokensOf(orgB));
      expect(sub.events.length).toBeGreaterThan(0);
      expect(sub.events.every((e) => ownTokens.has(e.subject))).toBe(true);
      expect(sub.events.map((e) => e.subject)).toContain(tokensOf(orgB)[0]);
    } finally {
      await clientB.dispose();
    }
  });

  it('closes the socket with 4403 for a wrong or missing key', async () => {
    expect(await closeAfterInit(server, { 'x-api-key': 'vr_live_not-a-key' })).toEqual({
      code: 4403,
      reason: 'Forbidden: invalid API key',
    });
    expect((await closeAfterInit(server, {})).code).toBe(4403);
    expect((await closeAfterInit(server, undefined)).code).toBe(4403);
    expect((await closeAfterInit(server, { apiKey: 42 })).code).toBe(4403);
  });

  it('closes the socket on a message beyond the size bound (1009) and on one that is not the protocol (4400)', async () => {
    const oversized = JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': keyA, padding: 'x'.repeat(64 * 1024) } });
    expect(await closeAfterMessage(server, oversized)).toBe(1009);
    expect(await closeAfterMessage(server, '{"type": "nonsense"')).toBe(4400);
  });

  it('refuses what an HTTP request would be refused, with the same codes, and keeps the socket open', async () => {
    const client = subscriptionClient(server, { 'x-api-key': keyA });
    try {
      const cases: [string, Record<string, unknown>, string][] = [
        ['subscription { events(after: "not-a-cursor") { cursor } }', {}, 'BAD_USER_INPUT'],
        ['subscription { events(types: ["report.nope"]) { cursor } }', {}, 'BAD_USER_INPUT'],
        ['subscription { reportChanged(types: ["notification.failed"]) { cursor } }', {}, 'BAD_USER_INPUT'],
        ['subscription { events { nope } }', {}, 'GRAPHQL_VALIDATION_FAILED'],
        ['subscription { events { cursor } reportChanged { cursor } }', {}, 'GRAPHQL_VALIDATION_FAILED'],
        ['{ events { next } }', {}, 'BAD_REQUEST'],
        ['subscription {', {}, 'GRAPHQL_PARSE_FAILED'],
      ];
      for (const [query, variables, code] of cases) {
        const sub = subscribe(client, query, variables);
        const error = await sub.waitForError();
        expect({ query, code: error.extensions?.code }).toEqual({ query, code });
      }
      // The socket still serves.
      const sub = subscribe(client, `subscription($after: String) { events(after: $after) { ${FIELDS} } }`, {
        after: (await feed(server, keyA, '')).next,
      });
      await touch(tokensOf(orgA)[8]!);
      await sub.waitForEvents(1);
      expect(sub.errors).toEqual([]);
    } finally {
      await client.dispose();
    }
  });

  it('bounds the open subscriptions of an organization, and frees a place when one ends', async () => {
    const keyC = keyB;
    const orgC = orgB;
    const clients = [subscriptionClient(server, { 'x-api-key': keyC }), subscriptionClient(server, { 'x-api-key': keyC })];
    try {
      const { next } = await feed(server, keyC, '');
      const query = `subscription($after: String) { events(after: $after) { ${FIELDS} } }`;
      const open = [
        subscribe(clients[0]!, query, { after: next }),
        subscribe(clients[0]!, query, { after: next }),
        subscribe(clients[1]!, query, { after: next }),
      ];
      await touch(tokensOf(orgC)[0]!);
      await Promise.all(open.map((s) => s.waitForEvents(1)));
      // The open ones are counted, and so are their pushes.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(Number(/^vr_graphql_subscriptions_open (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
      expect(Number(/^vr_subscription_events_pushed_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
      const refused = subscribe(clients[1]!, query, { after: next });
      const error = await refused.waitForError();
      expect(error.message).toBe('Too many subscriptions: at most 3 of one organization open at once');
      expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', maximumSubscriptions: 3 });
      // Another organization is not affected.
      const other = subscriptionClient(server, { 'x-api-key': keyA });
      const otherSub = subscribe(other, query, { after: (await feed(server, keyA, '')).next });
      await touch(tokensOf(orgA)[1]!);
      await otherSub.waitForEvents(1);
      await other.dispose();
      // One ends: a new one is admitted and served.
      open[0]!.unsubscribe();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const admitted = subscribe(clients[1]!, query, { after: next });
      await admitted.waitForEvents(1);
      expect(admitted.errors).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });
});

describe('change feed subscriptions across API instances (PostgreSQL)', () => {
  let server: TestServer;
  let second: { url: string; db: Database; http: Server };
  let key: string;
  let tokens: string[];

  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 20,
      // No polling worth the name: only a notification can wake a subscription within the test.
      config: {
        subscriptions: {
          perOrganization: 20,
          perSocket: 10,
          maxMessageBytes: 64 * 1024,
          pollMs: 60_000,
          pollWithoutNotificationsMs: 60_000,
        },
      },
    });
    key = server.keys[0]!;
    const organizationId = server.dataset.organizations[0]!.id;
    tokens = server.dataset.reports.filter((r) => r.organization_id === organizationId).map((r) => r.token);
    const db = await openDatabase({ url: server.databaseUrl! });
    const app = await createApp({ db, config: server.config });
    const http = createHttpServer(app, { requestTimeoutMs: server.config.requestTimeoutMs });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    second = { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, db, http };
  }, 120_000);
  afterAll(async () => {
    if (second) {
      await new Promise<void>((resolve) => second.http.close(() => resolve()));
      await second.db.close();
    }
    await server?.close();
  });

  it('a subscription in either instance receives the events written through either one', async () => {
    const organizationId = server.dataset.organizations[0]!.id;
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === organizationId)!.id;
    const { next } = await feed(server, key, '');
    const query = `subscription($after: String) { events(after: $after, types: ["report.created"]) { ${FIELDS} } }`;
    const clients = [subscriptionClient(server, { 'x-api-key': key }), subscriptionClient(second, { 'x-api-key': key })];
    try {
      const subs = clients.map((client) => subscribe(client, query, { after: next }));
      const created: string[] = [];
      for (const instance of [server, second, server]) {
        const lead = await graphql<{ createLead: { token: string } }>(
          instance,
          'mutation($d: UUID!) { createLead(dealership: $d, email: "lead@example.com") { token } }',
          { d: dealership },
          key,
        );
        expect(lead.body.errors).toBeUndefined();
        created.push(lead.body.data!.createLead.token);
      }
      // Every lead created, through either instance, reaches both (the seeding's own events may
      // come too: the horizon `next` was read at may have held them back).
      for (const sub of subs) {
        await waitFor(() => created.every((token) => sub.events.some((e) => e.subject === token)) || undefined, 20_000);
        expect(sub.errors).toEqual([]);
        expect(new Set(sub.events.map((e) => e.cursor)).size).toBe(sub.events.length);
      }
      const created0 = subs[0]!.events.filter((e) => created.includes(e.subject)).map((e) => e.cursor);
      const created1 = subs[1]!.events.filter((e) => created.includes(e.subject)).map((e) => e.cursor);
      expect(created0).toHaveLength(3);
      expect(created0).toEqual(created1);
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('does not skip the event of a transaction that started first and commits last, nor repeat one', async () => {
    const first = new pg.Client({ connectionString: server.databaseUrl });
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await Promise.all([first.connect(), other.connect()]);
    const client = subscriptionClient(second, { 'x-api-key': key });
    try {
      const { next } = await feed(server, key, '');
      const sub = subscribe(client, `subscription($after: String) { events(after: $after, types: ["report.updated"]) { ${FIELDS} } }`, {
        after: next,
      });
      await first.query('BEGIN');
      await first.query(touchSql, [tokens[0], 1]); // the smaller position
      await other.query('BEGIN');
      await other.query(touchSql, [tokens[1], 2]); // a larger position, committed first
      await other.query('COMMIT');
      // Notified, the subscription reads; the horizon holds the committed event back behind `first`.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sub.events).toEqual([]);
      await first.query('COMMIT');
      await sub.waitForEvents(2);
      await first.query(touchSql, [tokens[2], 3]);
      await sub.waitForEvents(3);
      expect(sub.events.map((e) => e.subject)).toEqual([tokens[0], tokens[1], tokens[2]]);
      const expected = await feed(server, key, next, 'report.updated');
      expect(sub.events.map((e) => e.cursor)).toEqual(expected.items.map((e) => e.cursor));
    } finally {
      await client.dispose();
      await Promise.all([first.end(), other.end()]);
    }
  });
});
