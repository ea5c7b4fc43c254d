/**
 * The default list page's `total` comes from `report_counts`, kept by triggers on `reports`: it
 * must equal `count(*)` after every kind of write (a lead, a bulk insert, a change of validity or
 * of organization, other updates, deletes, a truncate), on PGlite and PostgreSQL, and the default
 * page must read the counter instead of counting.
 */
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server';

describe.each(['pglite', 'postgres'] as const)('exact totals from report_counts on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 120 });
  });
  afterAll(() => server.close());

  const organizations = () => server.dataset.organizations.map((o) => o.id);

  /** Every organization's totals, valid and not, as the REST default page answers them and as count(*) says. */
  async function expectTotalsExact(): Promise<void> {
    for (const [index, organizationId] of organizations().entries()) {
      for (const valid of [true, false]) {
        const response = await fetch(`${server.url}/public/reports/?limit=0&valid=${valid}`, {
          headers: { 'x-api-key': server.keys[index]! },
        });
        const { total } = (await response.json()) as { total: number };
        const counted = await server.db.prisma.report.count({ where: { organization_id: organizationId, valid } });
        expect({ organizationId, valid, total }).toEqual({ organizationId, valid, total: counted });
      }
    }
  }

  it('reads the counter for the default page, and counts when a filter is given', async () => {
    server.resetQueryLog();
    await fetch(`${server.url}/public/reports/`, { headers: { 'x-api-key': server.keys[0]! } });
    expect(server.queries.filter((q) => /report_counts/.test(q))).toHaveLength(1);
    expect(server.queries.filter((q) => /count\(\*\)/i.test(q))).toHaveLength(0);
    server.resetQueryLog();
    await fetch(`${server.url}/public/reports/?type=remote`, { headers: { 'x-api-key': server.keys[0]! } });
    expect(server.queries.filter((q) => /count\(\*\)/i.test(q))).toHaveLength(1);
    await expectTotalsExact();
  });

  it('stays exact through leads, bulk inserts, updates, moves, deletes and a truncate', async () => {
    const prisma = server.db.prisma;
    const [orgA, orgB] = organizations() as [string, string];
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === orgA)!;

    const lead = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': server.keys[0]!, 'content-type': 'application/json' },
      body: JSON.stringify({ dealership: dealership.id, name: 'Counted Client' }),
    });
    expect(lead.status).toBe(201);
    await expectTotalsExact();

    // A bulk insert (one statement, many rows), as the admin import does.
    const template = await prisma.report.findFirstOrThrow({
      where: { organization_id: orgA },
      select: { organization_id: true, entity_id: true, dealership_id: true, type: true, valid: true, data: true, state: true },
    });
    const copies = Array.from({ length: 7 }, () => ({
      ...template,
      token: randomUUID(),
      data: template.data as object,
      state: template.state as object,
    }));
    await prisma.report.createMany({ data: copies });
    await expectTotalsExact();

    // Validity and organization changes move reports between counters; other updates do not.
    await prisma.report.updateMany({ where: { token: { in: copies.slice(0, 3).map((c) => c.token) } }, data: { valid: false } });
    await prisma.report.updateMany({ where: { token: { in: copies.slice(3, 5).map((c) => c.token) } }, data: { organization_id: orgB } });
    await prisma.report.updateMany({ where: { organization_id: orgA }, data: { updated_at: new Date() } });
    await expectTotalsExact();

    await prisma.report.deleteMany({ where: { token: { in: copies.map((c) => c.token) } } });
    await expectTotalsExact();

    // Rolled back writes leave the counter as it was.
    await prisma
      .$transaction(async (tx) => {
        await tx.report.updateMany({ where: { organization_id: orgA }, data: { valid: false } });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await expectTotalsExact();

    await prisma.$executeRawUnsafe('TRUNCATE reports CASCADE');
    await expectTotalsExact();
  });
});
