/**
 * The dispatcher's guarantees: nothing committed is lost (a lead queued while no dispatcher runs,
 * a row whose worker died mid-lease), nothing is sent twice by two dispatchers, a row gives up after
 * the last attempt, and stop() lets the batch under way finish.
 */
import { openDatabase, type Database } from '../../src/platform/db/database';
import { httpSmsSender } from '../../src/features/notifications/channels/sms-http';
import { outboxFileSender } from '../../src/features/notifications/channels/outbox-file';
import { OutboxDispatcher } from '../../src/features/notifications/dispatcher';
import type { DispatcherConfig } from '../../src/app/config';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dealershipOf, FAST_DISPATCHER, postLead, quietLogger, setQuota, startFakeSmsProvider, waitFor } from './support';

describe.each(['pglite', 'postgres'] as const)('outbox dispatcher (%s)', (kind) => {
  let server: TestServer;
  let provider: Awaited<ReturnType<typeof startFakeSmsProvider>>;
  let providerStatus: (call: number) => number = () => 202;
  const dispatchers: OutboxDispatcher[] = [];
  const extraDatabases: Database[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
    provider = await startFakeSmsProvider((call) => providerStatus(call), 15);
  });
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
    await Promise.all(extraDatabases.splice(0).map((db) => db.close()));
    // Each test starts from an empty outbox and a provider that accepts everything.
    await server.db.prisma.notificationOutbox.deleteMany({});
    provider.requests.length = 0;
    providerStatus = () => 202;
  });
  afterAll(async () => {
    await provider?.close();
    await server?.close();
  });

  function dispatcher(options: Partial<DispatcherConfig> = {}, db: Database = server.db, worker = 'a'): OutboxDispatcher {
    const senders = {
      email: outboxFileSender('email', { dataDir: '/nonexistent-never-used', logger: quietLogger }),
      sms: httpSmsSender({ url: `${provider.url}?worker=${worker}` }),
    };
    const created = new OutboxDispatcher(db.prisma, senders, { ...FAST_DISPATCHER, ...options }, quietLogger);
    dispatchers.push(created);
    return created;
  }

  async function queueSms(count: number): Promise<string[]> {
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 1_000);
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await postLead(server, server.keys[0], {
        dealership: dealership.id,
        name: `Client ${i}`,
        phone: `+336123456${String(i).padStart(2, '0')}`,
        sendPhone: true,
      });
      expect(created.status).toBe(201);
      tokens.push(created.body.token as string);
    }
    const rows = await server.db.prisma.notificationOutbox.findMany({ where: { report_token: { in: tokens } }, select: { id: true } });
    expect(rows).toHaveLength(count);
    return rows.map((r) => r.id);
  }

  const outbox = (id: string) => server.db.prisma.notificationOutbox.findUniqueOrThrow({ where: { id } });

  it('delivers a lead committed while no dispatcher was running once one starts', async () => {
    const [id] = await queueSms(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(provider.requests).toHaveLength(0);
    expect((await outbox(id!)).status).toBe('pending');

    dispatcher().start();
    await waitFor(async () => (await outbox(id!)).status === 'sent', 'delivery');
    expect(provider.requests.map((r) => r.body.reference)).toEqual([id]);
  });

  it('leaves a row under a live lease alone and re-claims it once the lease has expired', async () => {
    const [id] = await queueSms(1);
    // Another worker holds the row (claimed, still sending).
    await server.db.prisma.notificationOutbox.update({ where: { id }, data: { locked_until: new Date(Date.now() + 3_600_000) } });
    const worker = dispatcher();
    expect(await worker.runOnce()).toBe(0);
    expect(provider.requests).toHaveLength(0);

    // That worker crashed: its lease ran out with the row still pending.
    await server.db.prisma.notificationOutbox.update({ where: { id }, data: { locked_until: new Date(Date.now() - 1_000) } });
    expect(await worker.runOnce()).toBe(1);
    expect(provider.requests.map((r) => r.body.reference)).toEqual([id]);
    expect(await outbox(id!)).toMatchObject({ status: 'sent', attempts: 1, locked_until: null });
  });

  it('two dispatchers over the same outbox deliver each of 30 rows exactly once', async () => {
    const ids = await queueSms(30);
    // On PostgreSQL the second dispatcher has its own connection pool, as a second process would.
    const otherDb = server.databaseUrl ? await openDatabase({ url: server.databaseUrl, poolMax: 4 }) : server.db;
    if (otherDb !== server.db) extraDatabases.push(otherDb);
    const first = dispatcher({ batchSize: 3 }, server.db, 'a');
    const second = dispatcher({ batchSize: 3 }, otherDb, 'b');
    first.start();
    second.start();

    await waitFor(async () => (await server.db.prisma.notificationOutbox.count({ where: { status: 'sent' } })) === 30, 'all 30 rows sent');
    await Promise.all([first.stop(), second.stop()]);

    const references = provider.requests.map((r) => r.body.reference as string);
    expect(references).toHaveLength(30);
    expect(new Set(references)).toEqual(new Set(ids));
    // Both took part: the test exercises the concurrent claim, not one dispatcher alone.
    expect(provider.requests.some((r) => r.url.endsWith('worker=a'))).toBe(true);
    expect(provider.requests.some((r) => r.url.endsWith('worker=b'))).toBe(true);
    expect(await server.db.prisma.notificationAttempt.count({ where: { outbox_id: { in: ids } } })).toBe(30);
  });

  it('marks a row failed after the last attempt and stops trying', async () => {
    providerStatus = () => 503;
    const [id] = await queueSms(1);
    dispatcher({ maxAttempts: 3 }).start();
    const failed = await waitFor(async () => {
      const row = await outbox(id!);
      return row.status === 'failed' ? row : null;
    }, 'the row to fail');
    expect(failed.attempts).toBe(3);
    expect(failed.last_error).toMatch(/SMS provider answered 503/);
    expect(failed.sent_at).toBeNull();
    // The tenant reads a coarse reason, never the provider's own answer.
    const read = await graphql<{ report: { notifications: { status: string; last_error: string }[] } }>(
      server,
      'query($t: UUID!) { report(report_id: $t) { notifications { status last_error } } }',
      { t: failed.report_token },
      server.keys[0],
    );
    expect(read.body.data!.report.notifications).toEqual([{ status: 'failed', last_error: 'the provider failed to accept the message' }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(provider.requests).toHaveLength(3);
    const attempts = await server.db.prisma.notificationAttempt.findMany({ where: { outbox_id: id } });
    expect(attempts.map((a) => a.succeeded)).toEqual([false, false, false]);
  });

  it('stop() waits for the send under way and records it', async () => {
    const [id] = await queueSms(1);
    const worker = dispatcher();
    worker.start();
    await waitFor(async () => provider.requests.length === 1, 'the send to start');
    await worker.stop();
    expect(await outbox(id!)).toMatchObject({ status: 'sent', attempts: 1 });
  });
});
