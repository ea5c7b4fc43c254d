/**
 * SMS over a provider that fails twice: the dispatcher's retries deliver on the third call, each
 * attempt is recorded, and the provider receives the E.164 number, the filled template and the
 * outbox row id as reference and idempotency key.
 */
import { httpSmsSender } from '../../src/features/notifications/channels/sms-http';
import { outboxFileSender } from '../../src/features/notifications/channels/outbox-file';
import { OutboxDispatcher } from '../../src/features/notifications/dispatcher';
import { startTestServer, type TestServer } from '../support/server';
import { dealershipOf, FAST_DISPATCHER, postLead, quietLogger, setQuota, startFakeSmsProvider, waitFor } from './support';

describe.each(['pglite', 'postgres'] as const)('SMS notifications (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20 });
  });
  afterAll(() => server?.close());

  it('retries a failing provider with backoff and delivers on the third call', async () => {
    const provider = await startFakeSmsProvider((call) => (call <= 2 ? 500 : 202));
    const senders = {
      email: outboxFileSender('email', { dataDir: '/nonexistent-never-used', logger: quietLogger }),
      sms: httpSmsSender({ url: provider.url, token: 'test-token' }),
    };
    const dispatcher = new OutboxDispatcher(
      server.db.prisma,
      senders,
      { ...FAST_DISPATCHER, backoffBaseMs: 100, backoffMaxMs: 400 },
      quietLogger,
    );
    const { organization, dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 100);
    try {
      const created = await postLead(server, server.keys[0], {
        dealership: dealership.id,
        name: 'Jeanne Martin',
        phone: '06 12 34 56 78',
        folder_name: 'Clio 2019',
        sendPhone: true,
        custom_sms: 'Bonjour {name}, {dealership} ({organization}) vous envoie le dossier {folder_name} : {link} Merci',
      });
      expect(created.status).toBe(201);
      const token = created.body.token as string;
      const row = await server.db.prisma.notificationOutbox.findFirstOrThrow({ where: { report_token: token } });
      expect(row).toMatchObject({ channel: 'sms', recipient: '+33612345678', status: 'pending', attempts: 0 });

      dispatcher.start();
      const sent = await waitFor(async () => {
        const current = await server.db.prisma.notificationOutbox.findUniqueOrThrow({ where: { id: row.id } });
        return current.status === 'sent' ? current : null;
      }, 'the SMS to be sent');
      await dispatcher.stop();

      expect(provider.requests.map((r) => r.answeredStatus)).toEqual([500, 500, 202]);
      const last = provider.requests[2]!;
      expect(last.headers.authorization).toBe('Bearer test-token');
      expect(last.headers['idempotency-key']).toBe(row.id);
      const text = `Bonjour Jeanne Martin, ${dealership.name} (${organization.name}) vous envoie le dossier Clio 2019 : ${created.body.link as string} Merci`;
      expect(last.body).toEqual({
        to: '+33612345678',
        text,
        reference: row.id,
        segments: expect.any(Number),
        encoding: expect.any(String),
      });
      // Every call carried the same reference: a provider that deduplicates sends one SMS.
      expect(new Set(provider.requests.map((r) => r.body.reference))).toEqual(new Set([row.id]));

      expect(sent.attempts).toBe(3);
      expect(sent.last_error).toBeNull();
      expect(sent.sent_at).toBeInstanceOf(Date);
      const attempts = await server.db.prisma.notificationAttempt.findMany({
        where: { outbox_id: row.id },
        orderBy: { attempted_at: 'asc' },
      });
      expect(attempts.map((a) => a.succeeded)).toEqual([false, false, true]);
      expect(attempts[0]!.error).toMatch(/SMS provider answered 500/);
      // Backoff: the attempts are spread out by at least half of the base delay each time.
      const gaps = attempts.slice(1).map((a, i) => a.attempted_at.getTime() - attempts[i]!.attempted_at.getTime());
      expect(gaps[0]).toBeGreaterThanOrEqual(50);
      expect(gaps[1]).toBeGreaterThanOrEqual(100);
    } finally {
      await dispatcher.stop();
      await provider.close();
    }
  });

  it('sends the language template when there is no custom text, with segments and encoding', async () => {
    const provider = await startFakeSmsProvider();
    const dispatcher = new OutboxDispatcher(
      server.db.prisma,
      {
        email: outboxFileSender('email', { dataDir: '/nonexistent-never-used', logger: quietLogger }),
        sms: httpSmsSender({ url: provider.url }),
      },
      FAST_DISPATCHER,
      quietLogger,
    );
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 100);
    try {
      const created = await postLead(server, server.keys[0], {
        dealership: dealership.id,
        name: 'Hans',
        phone: '0151 23456789',
        lang: 'de',
        sendPhone: true,
      });
      expect(created.status).toBe(201);
      dispatcher.start();
      await waitFor(async () => provider.requests.length === 1, 'the SMS call');
      await dispatcher.stop();
      const body = provider.requests[0]!.body as { to: string; text: string; segments: number; encoding: string };
      expect(body.to).toBe('+4915123456789');
      expect(body.text).toBe(
        `Hallo Hans, ${dealership.name} lädt Sie ein, Ihren Fahrzeugbericht auszufüllen: ${created.body.link as string}`,
      );
      // "ä" and "ü" are in the GSM-7 alphabet; the text is longer than one part.
      expect(body.encoding).toBe('GSM-7');
      expect(body.segments).toBe(body.text.length <= 160 ? 1 : Math.ceil(body.text.length / 153));
    } finally {
      await dispatcher.stop();
      await provider.close();
    }
  });
});
