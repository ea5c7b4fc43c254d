/**
 * Lead creation over REST and GraphQL (spec 4.3, api-behaviour.md "Lead creation"), on both databases:
 * what is stored, what is queued, every refusal, the quota under concurrency and Idempotency-Key.
 */
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dealershipOf, postLead, setQuota } from '../notifications/support';

const APP_BASE_URL = 'https://app.leads.test';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const CREATE_LEAD = `mutation($dealership: UUID!, $email: String, $phone: String, $sendEmail: Boolean, $sendPhone: Boolean) {
  createLead(dealership: $dealership, email: $email, phone: $phone, sendEmail: $sendEmail, sendPhone: $sendPhone) { token link }
}`;

describe.each(['pglite', 'postgres'] as const)('create-lead (%s)', (kind) => {
  let server: TestServer;
  let lead: ReturnType<typeof dealershipOf>;
  let otherOrganization: ReturnType<typeof dealershipOf>;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20, config: { appBaseUrl: APP_BASE_URL } });
    lead = dealershipOf(server, 0);
    otherOrganization = dealershipOf(server, 1);
  });
  beforeEach(() => setQuota(server, lead.entityId, 1_000));
  afterAll(() => server?.close());

  const counts = async () => ({
    reports: await server.db.prisma.report.count(),
    contacts: await server.db.prisma.contact.count(),
    outbox: await server.db.prisma.notificationOutbox.count(),
  });

  it('201 {token, link}; stores a remote report, its contact, and one outbox row per channel', async () => {
    const response = await postLead(server, server.keys[0], {
      dealership: lead.dealership.id.toUpperCase(),
      name: 'Jeanne Martin',
      email: 'jeanne@example.com',
      phone: '06 12 34 56 78',
      folder_name: 'Dossier Clio',
      sendEmail: true,
      sendPhone: true,
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['link', 'token']);
    const token = response.body.token as string;
    expect(token).toMatch(UUID_RE);
    expect(response.body.link).toBe(`${APP_BASE_URL}/reports/${token}`);

    const report = await server.db.prisma.report.findUniqueOrThrow({ where: { token }, include: { contact: true } });
    expect(report).toMatchObject({
      type: 'remote',
      profile_id: null,
      valid: true,
      organization_id: lead.organization.id,
      entity_id: lead.entityId,
      dealership_id: lead.dealership.id,
    });
    const data = report.data as { metadata: Record<string, unknown> };
    expect(data.metadata.name).toBe('Dossier Clio');
    expect(data.metadata.individual).toEqual({ name: 'Jeanne Martin', email: 'jeanne@example.com', phone: '+33612345678' });
    const state = report.state as { folder_created: { status: boolean; date: string } };
    expect(state.folder_created.status).toBe(true);
    expect(Math.abs(Date.parse(state.folder_created.date) - Date.now())).toBeLessThan(60_000);
    expect(report.contact).toMatchObject({
      organization_id: lead.organization.id,
      name: 'Jeanne Martin',
      email: 'jeanne@example.com',
      phone: '+33612345678',
    });

    const outbox = await server.db.prisma.notificationOutbox.findMany({ where: { report_token: token }, orderBy: { channel: 'asc' } });
    expect(outbox.map((r) => [r.channel, r.recipient, r.status])).toEqual([
      ['email', 'jeanne@example.com', 'pending'],
      ['sms', '+33612345678', 'pending'],
    ]);
    expect(outbox[0]!.payload).toMatchObject({
      lang: 'fr',
      link: response.body.link,
      client_name: 'Jeanne Martin',
      dealership: lead.dealership.name,
      organization: lead.organization.name,
    });

    // The report is visible to the key over REST, without the GraphQL-only notifications field.
    const fetched = await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': server.keys[0]! } });
    expect(fetched.status).toBe(200);
    const full = (await fetched.json()) as Record<string, unknown>;
    expect(full.type).toBe('remote');
    expect(full).not.toHaveProperty('notifications');
  });

  it('queues nothing when no channel is asked for, and takes one quota unit', async () => {
    const before = await counts();
    const response = await postLead(server, server.keys[0], { dealership: lead.dealership.id, email: 'a@example.com' });
    expect(response.status).toBe(201);
    expect(await counts()).toEqual({ reports: before.reports + 1, contacts: before.contacts + 1, outbox: before.outbox });
    expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: lead.entityId } })).remote_quota_used).toBe(1);
  });

  describe('refusals', () => {
    const body = () => ({ dealership: lead.dealership.id });

    it.each([
      ['bad dealership uuid', () => ({ dealership: 'nope' }), [{ loc: ['body', 'dealership'], type: 'uuid_parsing' }]],
      [
        'sendEmail without email',
        () => ({ ...body(), sendEmail: true }),
        [{ loc: ['body', 'email'], type: 'missing', msg: 'Field required when sendEmail is true' }],
      ],
      [
        'sendPhone without phone',
        () => ({ ...body(), sendPhone: true }),
        [{ loc: ['body', 'phone'], type: 'missing', msg: 'Field required when sendPhone is true' }],
      ],
      [
        'bad e-mail',
        () => ({ ...body(), email: 'jeanne.example.com' }),
        [{ loc: ['body', 'email'], type: 'value_error', msg: 'value is not a valid email address: An email address must have an @-sign.' }],
      ],
      ['impossible phone', () => ({ ...body(), phone: '12' }), [{ loc: ['body', 'phone'], type: 'value_error' }]],
      ['unknown lang', () => ({ ...body(), lang: 'xx' }), [{ loc: ['body', 'lang'], type: 'enum' }]],
      [
        'custom_sms too long',
        () => ({ ...body(), custom_sms: 'x'.repeat(481) }),
        [{ loc: ['body', 'custom_sms'], type: 'string_too_long' }],
      ],
      [
        'unknown placeholder',
        () => ({ ...body(), custom_sms: 'Hi {firstname} {link}' }),
        [{ loc: ['body', 'custom_sms'], type: 'value_error' }],
      ],
      ['body not an object', () => [1, 2], [{ loc: ['body'], type: 'model_attributes_type' }]],
      ['wrong JSON type', () => ({ ...body(), sendEmail: 'maybe' }), [{ loc: ['body', 'sendEmail'], type: 'bool_parsing' }]],
    ])('422 for %s, nothing written', async (_case, makeBody, expected) => {
      const before = await counts();
      const response = await postLead(server, server.keys[0], makeBody());
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual(expected.map((e) => expect.objectContaining(e)));
      expect(await counts()).toEqual(before);
    });

    it('422 json_invalid at the position of malformed JSON', async () => {
      const response = await postLead(server, server.keys[0], '{"dealership": ');
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([
        expect.objectContaining({ type: 'json_invalid', loc: ['body', expect.any(Number)], msg: 'JSON decode error' }),
      ]);
    });

    it('reports every failing field at once; the cross-field rules only once every field passed (a Pydantic model validator)', async () => {
      const fields = await postLead(server, server.keys[0], { ...body(), email: 'bad', name: 'n'.repeat(101), sendPhone: true });
      expect(fields.status).toBe(422);
      expect((fields.body.detail as { loc: string[] }[]).map((d) => d.loc)).toEqual([
        ['body', 'email'],
        ['body', 'name'],
      ]);
      const cross = await postLead(server, server.keys[0], { ...body(), sendPhone: true, sendEmail: true });
      expect(cross.status).toBe(422);
      expect((cross.body.detail as { loc: string[] }[]).map((d) => d.loc)).toEqual([
        ['body', 'email'],
        ['body', 'phone'],
      ]);
      const phone = await postLead(server, server.keys[0], { ...body(), phone: '12' });
      expect(phone.body.detail).toEqual([
        { type: 'value_error', loc: ['body', 'phone'], msg: 'value is not a valid phone number', input: '12' },
      ]);
    });

    it.each([
      ["another organization's dealership", () => otherOrganization.dealership.id],
      ['an unknown dealership', () => '00000000-0000-4000-8000-000000000000'],
    ])('404 for %s', async (_case, dealership) => {
      const before = await counts();
      const response = await postLead(server, server.keys[0], { dealership: dealership() });
      expect(response).toEqual({ status: 404, body: { detail: 'Dealership not found' } });
      expect(await counts()).toEqual(before);
    });

    it('401 without a key', async () => {
      expect(await postLead(server, undefined, body())).toEqual({ status: 401, body: { detail: 'Not authenticated' } });
      expect(await postLead(server, 'vr_live_not-a-key', body())).toEqual({ status: 401, body: { detail: 'Invalid API key' } });
    });
  });

  describe('quota', () => {
    it('403 when used up, and nothing is written', async () => {
      await setQuota(server, lead.entityId, 5, 5);
      const before = await counts();
      const response = await postLead(server, server.keys[0], { dealership: lead.dealership.id, email: 'q@example.com', sendEmail: true });
      expect(response).toEqual({ status: 403, body: { detail: 'Subscription quota exhausted' } });
      expect(await counts()).toEqual(before);
      expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: lead.entityId } })).remote_quota_used).toBe(5);
    });

    it('50 concurrent requests against a quota of 10: exactly 10 created', async () => {
      await setQuota(server, lead.entityId, 10, 0);
      const before = await counts();
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          postLead(server, server.keys[0], { dealership: lead.dealership.id, email: `c${i}@example.com`, sendEmail: true }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 403)).toHaveLength(40);
      expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: lead.entityId } })).remote_quota_used).toBe(10);
      expect(await counts()).toEqual({ reports: before.reports + 10, contacts: before.contacts + 10, outbox: before.outbox + 10 });
    });

    it('a new period starts from zero', async () => {
      await setQuota(server, lead.entityId, 1, 1);
      await server.db.prisma.entity.update({
        where: { id: lead.entityId },
        data: { quota_period_start: new Date(Date.now() - 40 * 86_400_000) },
      });
      expect((await postLead(server, server.keys[0], { dealership: lead.dealership.id })).status).toBe(201);
      expect((await server.db.prisma.entity.findUniqueOrThrow({ where: { id: lead.entityId } })).remote_quota_used).toBe(1);
    });
  });

  describe('Idempotency-Key', () => {
    it('same key, same body: the first response, nothing created twice', async () => {
      const key = `idem-${kind}-${Date.now()}`;
      const payload = { dealership: lead.dealership.id, email: 'idem@example.com', sendEmail: true };
      const first = await postLead(server, server.keys[0], payload, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const before = await counts();
      const again = await postLead(
        server,
        server.keys[0],
        { sendEmail: true, email: 'idem@example.com', dealership: lead.dealership.id },
        { 'idempotency-key': key },
      );
      expect(again).toEqual(first);
      expect(await counts()).toEqual(before);
    });

    it('concurrent requests with one key create one report', async () => {
      const key = `idem-race-${kind}-${Date.now()}`;
      const before = await counts();
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          postLead(
            server,
            server.keys[0],
            { dealership: lead.dealership.id, phone: '+33612345678', sendPhone: true },
            { 'idempotency-key': key },
          ),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(responses.map((r) => r.body.token)).size).toBe(1);
      expect(await counts()).toEqual({ reports: before.reports + 1, contacts: before.contacts + 1, outbox: before.outbox + 1 });
    });

    it('same key, different body: 409', async () => {
      const key = `idem-conflict-${kind}-${Date.now()}`;
      expect(
        (await postLead(server, server.keys[0], { dealership: lead.dealership.id, name: 'A' }, { 'idempotency-key': key })).status,
      ).toBe(201);
      const before = await counts();
      const conflict = await postLead(server, server.keys[0], { dealership: lead.dealership.id, name: 'B' }, { 'idempotency-key': key });
      expect(conflict.status).toBe(409);
      expect(typeof conflict.body.detail).toBe('string');
      expect(await counts()).toEqual(before);
    });
  });

  describe('GraphQL', () => {
    it('creates a lead and shows its notifications with masked recipients', async () => {
      const created = await graphql<{ createLead: { token: string; link: string } }>(
        server,
        CREATE_LEAD,
        { dealership: lead.dealership.id, email: 'jeanne.doe@example.com', phone: '+33612345678', sendEmail: true, sendPhone: true },
        server.keys[0],
      );
      expect(created.body.errors).toBeUndefined();
      const { token, link } = created.body.data!.createLead;
      expect(link).toBe(`${APP_BASE_URL}/reports/${token}`);

      const read = await graphql<{ report: { token: string; notifications: Record<string, unknown>[] } }>(
        server,
        `
          query ($id: UUID!) {
            report(report_id: $id) {
              token
              notifications {
                id
                channel
                recipient
                status
                attempts
                last_error
                sent_at
                created_at
              }
            }
          }
        `,
        { id: token },
        server.keys[0],
      );
      expect(read.body.errors).toBeUndefined();
      const notifications = read.body.data!.report.notifications;
      expect(notifications.map((n) => [n.channel, n.recipient, n.status, n.attempts, n.last_error, n.sent_at])).toEqual(
        expect.arrayContaining([
          ['email', 'j***@example.com', 'pending', 0, null, null],
          ['sms', '+3361****78', 'pending', 0, null, null],
        ]),
      );
      expect(notifications).toHaveLength(2);
      // Another organization does not see the report at all.
      const other = await graphql(
        server,
        `
          query ($id: UUID!) {
            report(report_id: $id) {
              notifications {
                id
              }
            }
          }
        `,
        { id: token },
        server.keys[1],
      );
      expect(other.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    it.each([
      ['QUOTA_EXHAUSTED', async () => setQuota(server, lead.entityId, 1, 1), () => ({ dealership: lead.dealership.id })],
      ['NOT_FOUND', async () => undefined, () => ({ dealership: otherOrganization.dealership.id })],
      ['BAD_USER_INPUT', async () => undefined, () => ({ dealership: lead.dealership.id, sendEmail: true })],
    ])('error code %s', async (code, prepare, variables) => {
      await prepare();
      const before = await counts();
      const response = await graphql(server, CREATE_LEAD, variables(), server.keys[0]);
      expect(response.body.errors?.[0]?.extensions?.code).toBe(code);
      expect(await counts()).toEqual(before);
    });
  });
});
