/**
 * The create-lead e-mail over real HTTP, REST and GraphQL, on both databases: addresses that real
 * Pydantic's EmailStr answered (test/parity/email-answers.json) give its 422 item or are stored as
 * the address it returns, normalized (display name dropped, domain lower-cased and Unicode, RFC 2142
 * role names lower-cased), in the report, its contact and the e-mail notification's recipient.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dealershipOf, postLead, setQuota } from '../notifications/support';

interface OracleAnswer {
  input: string;
  normalized?: string;
  msg?: string;
}

const answers = (
  JSON.parse(readFileSync(path.join(__dirname, '..', 'parity', 'email-answers.json'), 'utf8')) as { answers: OracleAnswer[] }
).answers;
const answerFor = (input: string) => {
  const answer = answers.find((a) => a.input === input);
  if (!answer) throw new Error(`${JSON.stringify(input)} is not in the oracle's corpus`);
  return answer;
};

/** Accepted by EmailStr (most of them refused by the previous check), all but the long local part normalized. */
const ACCEPTED = [
  'Jean <a@example.com>',
  '<a@example.com>',
  `${'a'.repeat(65)}@example.com`,
  'Info@Example.COM',
  'a@BÜCHER.DE',
  'a@xn--bcher-kva.ch',
  ' a@example.com ',
  '"Na\u0000me" <ab@example.com>',
];
/** Refused by EmailStr (several of which the previous check accepted, or refused for another reason). */
const REFUSED = [
  '',
  'a b@example.com',
  'a@example.invalid',
  'a..b@example.com',
  'a@exemple.fr.',
  '"a b"@example.com',
  'a\u0000b@example.com',
  '\ud800ab@example.com',
  'a@[1.2.3.4]',
  'a@example.com。',
];

const CREATE_LEAD = `mutation($dealership: UUID!, $email: String) {
  createLead(dealership: $dealership, email: $email, sendEmail: true) { token link }
}`;

describe.each(['pglite', 'postgres'] as const)('create-lead e-mail as EmailStr (%s)', (kind) => {
  let server: TestServer;
  let lead: ReturnType<typeof dealershipOf>;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 5 });
    lead = dealershipOf(server, 0);
    await setQuota(server, lead.entityId, 1_000);
  });
  afterAll(() => server?.close());

  async function storedEmails(token: string) {
    const report = await server.db.prisma.report.findUniqueOrThrow({ where: { token }, include: { contact: true } });
    const outbox = await server.db.prisma.notificationOutbox.findMany({ where: { report_token: token, channel: 'email' } });
    return {
      metadata: (report.data as { metadata: { individual: { email: string } } }).metadata.individual.email,
      contact: report.contact?.email,
      recipients: outbox.map((row) => row.recipient),
    };
  }

  it.each(ACCEPTED)('REST stores %j as EmailStr normalizes it', async (input) => {
    const { normalized } = answerFor(input);
    expect(normalized).toBeDefined();
    const response = await postLead(server, server.keys[0], { dealership: lead.dealership.id, email: input, sendEmail: true });
    expect(response.status).toBe(201);
    expect(await storedEmails(response.body.token as string)).toEqual({
      metadata: normalized,
      contact: normalized,
      recipients: [normalized],
    });
  });

  it.each(REFUSED)('REST refuses %j with Pydantic’s item', async (input) => {
    const { msg } = answerFor(input);
    expect(msg).toBeDefined();
    const response = await postLead(server, server.keys[0], { dealership: lead.dealership.id, email: input });
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'email'],
        msg,
        input,
        ctx: { reason: msg!.replace('value is not a valid email address: ', '') },
      },
    ]);
  });

  it('REST reads a lone surrogate sent as UTF-8 bytes as json.loads does, and EmailStr refuses it', async () => {
    const input = '\ud800ab@example.com';
    const bytes = Buffer.concat([
      Buffer.from(`{"dealership":"${lead.dealership.id}","email":"`),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('ab@example.com"}'),
    ]);
    const response = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys[0]! },
      body: new Uint8Array(bytes),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: unknown };
    expect(body.detail).toEqual([expect.objectContaining({ loc: ['body', 'email'], msg: answerFor(input).msg, input })]);
  });

  it('GraphQL stores the normalized address and refuses with the same message', async () => {
    const accepted = await graphql<{ createLead: { token: string } }>(
      server,
      CREATE_LEAD,
      { dealership: lead.dealership.id, email: 'a@BÜCHER.DE' },
      server.keys[0],
    );
    expect(accepted.body.errors).toBeUndefined();
    const normalized = answerFor('a@BÜCHER.DE').normalized;
    expect(normalized).toBe('a@bücher.de');
    expect(await storedEmails(accepted.body.data!.createLead.token)).toEqual({
      metadata: normalized,
      contact: normalized,
      recipients: [normalized],
    });

    for (const input of ['a b@example.com', 'a@example.invalid', '\ud800ab@example.com']) {
      const { msg } = answerFor(input);
      const refused = await graphql(server, CREATE_LEAD, { dealership: lead.dealership.id, email: input }, server.keys[0]);
      expect(refused.body.data?.createLead ?? null).toBeNull();
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        argumentName: 'email',
        detail: [expect.objectContaining({ type: 'value_error', msg, input })],
      });
    }
  });
});
