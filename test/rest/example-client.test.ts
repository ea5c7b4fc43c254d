/**
 * The REST example client (examples/rest-client.ts: openapi-typescript types + openapi-fetch) run
 * against the real server on both databases: a JSON filter and a lead with its idempotency key,
 * compared with what the server holds.
 */
import { randomUUID } from 'node:crypto';
import { inviteByEmail, remoteReportsContaining, restClient } from '../../examples/rest-client';
import { startTestServer, type TestServer } from '../support/server';

describe.each(['pglite', 'postgres'] as const)('the generated REST client on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 80 });
  });
  afterAll(() => server.close());

  it('sends a JSON filter and creates a lead, idempotently', async () => {
    const client = restClient({ baseUrl: server.url, apiKey: server.keys[0]! });
    const organizationId = server.dataset.organizations[0]!.id;
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === organizationId)!;
    const idempotencyKey = `example-${randomUUID()}`;
    const lead = { dealership: dealership.id, name: 'Example Client', email: 'example.client@example.com', idempotencyKey };
    const created = await inviteByEmail(client, lead);
    expect(await inviteByEmail(client, lead)).toEqual(created);

    // The lead's document names its client: found by a JSON containment filter, and only it.
    const page = await remoteReportsContaining(client, { metadata: { individual: { email: lead.email } } });
    expect(page.items.map((item) => item.token)).toEqual([created.token]);
    expect(page.total).toBe(1);
    const nobody = await remoteReportsContaining(client, { metadata: { individual: { email: 'nobody@example.com' } } });
    expect(nobody.total).toBe(0);
    const remote = await server.db.prisma.report.count({ where: { organization_id: organizationId, type: 'remote' } });
    expect(remote).toBeGreaterThan(1);
  });
});
