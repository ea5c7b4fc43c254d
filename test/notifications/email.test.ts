/**
 * E-mail end to end: a lead created over REST is delivered by the dispatcher through SMTP to a real
 * SMTP server in this process, in the requested language, with the report link.
 */
import { startDispatcher, type RunningDispatcher } from '../../src/app/dispatcher-from-config';
import { startTestServer, type TestServer } from '../support/server';
import { dealershipOf, FAST_DISPATCHER, parseMail, postLead, quietLogger, setQuota, startSmtpServer, waitFor } from './support';

describe.each(['pglite', 'postgres'] as const)('e-mail notifications (%s)', (kind) => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let running: RunningDispatcher | undefined;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    server = await startTestServer(kind, {
      reports: 20,
      config: {
        smtpUrl: smtp.url,
        mailFrom: 'Vehicle Report <leads@vehicle-report.test>',
        appBaseUrl: 'https://app.example.test',
        dispatcher: FAST_DISPATCHER,
      },
    });
  });
  afterAll(async () => {
    await running?.stop();
    await server?.close();
    await smtp?.close();
  });

  it.each([
    {
      lang: 'en',
      subject: (d: string) => `${d}: your vehicle report`,
      greeting: 'Hello Jane Doe,',
      invitation: 'invites you to complete your vehicle report online.',
    },
    {
      lang: 'it',
      subject: (d: string) => `${d}: il rapporto del suo veicolo`,
      greeting: 'Buongiorno Jane Doe,',
      invitation: 'la invita a completare online il rapporto del suo veicolo.',
    },
    {
      lang: 'de',
      subject: (d: string) => `${d}: Ihr Fahrzeugbericht`,
      greeting: 'Hallo Jane Doe,',
      invitation: 'lädt Sie ein, den Bericht zu Ihrem Fahrzeug online auszufüllen.',
    },
  ])('delivers the $lang e-mail with the report link', async ({ lang, subject, greeting, invitation }) => {
    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 100);
    const email = `jane.${lang}@example.com`;
    const created = await postLead(server, server.keys[0], { dealership: dealership.id, name: 'Jane Doe', email, lang, sendEmail: true });
    expect(created.status).toBe(201);
    const link = created.body.link as string;
    expect(link).toBe(`https://app.example.test/reports/${created.body.token as string}`);

    running ??= startDispatcher(server.db, server.config, quietLogger);
    const received = await waitFor(async () => smtp.mails.find((m) => m.to.includes(email)), `the ${lang} e-mail`);
    const mail = parseMail(received.raw);

    expect(received.from).toBe('leads@vehicle-report.test');
    expect(mail.to).toBe(email);
    expect(mail.subject).toBe(subject(dealership.name));
    expect(mail.text).toContain(greeting);
    expect(mail.text).toContain(`${dealership.name} ${invitation}`);
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.html).toContain(`lang="${lang}"`);

    const row = await waitFor(
      () => server.db.prisma.notificationOutbox.findFirst({ where: { report_token: created.body.token as string, status: 'sent' } }),
      'the outbox row to be marked sent',
    );
    expect(mail.headers.get('message-id')).toBe(`<${row.id}@vehicle-report.outbox>`);
    expect(row).toMatchObject({ channel: 'email', recipient: email, attempts: 1, last_error: null });
    expect(await server.db.prisma.notificationAttempt.count({ where: { outbox_id: row.id, succeeded: true } })).toBe(1);
  });
});
