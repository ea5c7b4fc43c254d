/**
 * Every GraphQL operation over real HTTP on a real, seeded database (PGlite and PostgreSQL):
 * success shapes compared with the seeded rows, tenancy, relations, and every kind of error.
 */
import { randomUUID } from 'node:crypto';
import { LatestReports, ReportDetail, request } from '../../examples/graphql-client';
import type { ReportRow } from '../../src/seed/dataset';
import { graphql, startTestServer, type TestServer } from '../support/server';
import { dataOf, newestFirst, normalized, onlyError, reportsOf, searchHaystack, usersOf } from './expected';

const REPORT_COUNT = 300;

/** A well-formed key no organization holds: it must be told apart from a missing one. */
const UNKNOWN_KEY = `vr_live_${'A'.repeat(32)}`;

interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

describe.each(['pglite', 'postgres'] as const)('GraphQL queries on %s', (kind) => {
  let server: TestServer;
  // Organization A (index 0) is the caller; B (index 1) is the other tenant.
  let keyA: string;
  let keyB: string;
  let orgA: string;
  let orgB: string;
  const gql = (query: string, variables: Record<string, unknown> = {}, apiKey: string | undefined = keyA) =>
    graphql(server, query, variables, apiKey);
  const tokens = (rows: { token: string }[]) => rows.map((r) => r.token);

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: REPORT_COUNT });
    [keyA, keyB] = server.keys as [string, string];
    [orgA, orgB] = server.dataset.organizations.map((o) => o.id) as [string, string];
  });

  afterAll(async () => {
    await server?.close();
  });

  const reportOfType = (organizationId: string, type: ReportRow['type']) =>
    reportsOf(server.dataset, organizationId, (r) => r.type === type && r.profile_id !== null)[0]!;

  describe('reports', () => {
    it('lists the newest page with relations, through the typed example client', async () => {
      const expected = reportsOf(server.dataset, orgA);
      const { reports } = await request({ baseUrl: server.url, apiKey: keyA }, LatestReports, { limit: 20 });
      expect(reports.total).toBe(expected.length);
      expect(reports.items.map((r) => r.token)).toEqual(tokens(expected.slice(0, 20)));
      for (const [index, item] of reports.items.entries()) {
        const row = expected[index]!;
        expect(item.type).toBe(row.type);
        expect(item.created_at).toBe(row.created_at.toISOString());
        expect(item.data.vehicle).toEqual({ vin: row.data.vehicle.vin, license_number: row.data.vehicle.license.number });
        expect(item.dealership?.id).toBe(row.dealership_id);
        expect(item.profile?.id ?? null).toBe(row.profile_id);
      }
    });

    it('pages with limit and offset', async () => {
      const expected = reportsOf(server.dataset, orgA);
      const { reports } = await request({ baseUrl: server.url, apiKey: keyA }, LatestReports, { limit: 7, offset: 30 });
      expect(reports.items.map((r) => r.token)).toEqual(tokens(expected.slice(30, 37)));
    });

    /** Each case: the filter arguments and the same filter as a predicate over the seeded rows. */
    const filterCases: [string, () => { args: Record<string, unknown>; matches: (r: ReportRow) => boolean; includeInvalid?: boolean }][] = [
      ['type', () => ({ args: { type: 'counter_inspection' }, matches: (r) => r.type === 'counter_inspection' })],
      [
        'dealership_id',
        () => {
          const dealership = server.dataset.dealerships.find((d) => d.organization_id === orgA)!;
          return { args: { dealership_id: dealership.id }, matches: (r) => r.dealership_id === dealership.id };
        },
      ],
      [
        'vin, lower case with a dash',
        () => {
          const vin = reportsOf(server.dataset, orgA)[3]!.data.vehicle.vin;
          return { args: { vin: `${vin.slice(0, 5).toLowerCase()}-${vin.slice(5)}` }, matches: (r) => r.data.vehicle.vin === vin };
        },
      ],
      [
        'license_number, another spelling',
        () => {
          const plate = reportsOf(server.dataset, orgA)[5]!.data.vehicle.license.number;
          return {
            args: { license_number: ` ${normalized(plate).toLowerCase().split('').join(' ')} ` },
            matches: (r) => normalized(r.data.vehicle.license.number) === normalized(plate),
          };
        },
      ],
      ['brand, upper case', () => ({ args: { brand: 'RENAULT' }, matches: (r) => r.data.vehicle.specifications.brand === 'Renault' })],
      [
        'search, two terms',
        () => {
          const sample = reportsOf(server.dataset, orgA)[8]!;
          const terms = [
            sample.data.metadata.individual.email.split('@')[0]!.slice(0, 6),
            sample.data.vehicle.specifications.brand.toLowerCase(),
          ];
          return {
            args: { search: `  ${terms.join('   ')} ` },
            matches: (r) => terms.every((term) => searchHaystack(server.dataset, r).some((text) => text.includes(term))),
          };
        },
      ],
      [
        'created_at bounds, inclusive',
        () => {
          const rows = reportsOf(server.dataset, orgA);
          const [to, from] = [rows[10]!.created_at, rows[40]!.created_at];
          return {
            args: { created_at__gte: from.toISOString(), created_at__lte: to.toISOString() },
            matches: (r) => r.created_at >= from && r.created_at <= to,
          };
        },
      ],
      ['valid: false', () => ({ args: { valid: false }, matches: (r) => !r.valid, includeInvalid: true })],
      [
        'state__contains',
        () => ({
          args: { state__contains: { folder_sold: { status: true } } },
          matches: (r) => r.state.folder_sold.status === true,
        }),
      ],
      [
        'state__not_contains with type',
        () => ({
          args: { state__not_contains: { folder_sold: { status: true } }, type: 'inspection' },
          matches: (r) => r.state.folder_sold.status !== true && r.type === 'inspection',
        }),
      ],
    ];

    it.each(filterCases)('filters by %s', async (_name, build) => {
      const { args, matches, includeInvalid } = build();
      const expected = server.dataset.reports
        .filter((r) => r.organization_id === orgA && (includeInvalid || r.valid) && matches(r))
        .sort(newestFirst((r) => r.token));
      // A filter matching nothing or everything would prove little.
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(reportsOf(server.dataset, orgA).length);
      const variableDefs = Object.keys(args)
        .map((name) => `$${name}: ${variableType(name)}`)
        .join(', ');
      const argList = Object.keys(args)
        .map((name) => `${name}: $${name}`)
        .join(', ');
      const response = await gql(
        `query Filtered(${variableDefs}) { reports(${argList}, limit: 1000) { total items { token organization_id } } }`,
        args,
      );
      const { reports } = dataOf<{ reports: Page<{ token: string; organization_id: string }> }>(response);
      expect(reports.total).toBe(expected.length);
      expect(tokens(reports.items)).toEqual(tokens(expected));
    });

    it('orders by order_by, ties by token', async () => {
      const expected = [...reportsOf(server.dataset, orgA)].sort(
        (a, b) => a.updated_at.getTime() - b.updated_at.getTime() || (a.token < b.token ? -1 : 1),
      );
      const response = await gql('{ reports(order_by: "updated_at", limit: 1000) { items { token } } }');
      expect(tokens(dataOf<{ reports: Page<{ token: string }> }>(response).reports.items)).toEqual(tokens(expected));
    });

    it('fetches one full report, through the typed example client', async () => {
      const row = reportOfType(orgA, 'inspection');
      const { report } = await request({ baseUrl: server.url, apiKey: keyA }, ReportDetail, { report_id: row.token.toUpperCase() });
      expect(report).toEqual({
        token: row.token,
        type: row.type,
        valid: row.valid,
        data: {
          vehicle: {
            vin: row.data.vehicle.vin,
            specifications: {
              brand: row.data.vehicle.specifications.brand,
              model: row.data.vehicle.specifications.model,
              year: row.data.vehicle.specifications.year,
            },
          },
        },
        state: { folder_created: { status: row.state.folder_created.status, date: row.state.folder_created.date } },
        organization: { id: orgA, name: server.dataset.organizations[0]!.name },
      });
    });
  });

  describe('users and dealerships', () => {
    it('lists users newest first, with filters', async () => {
      const expected = usersOf(server.dataset, (u) => u.organization_id === orgA);
      const all = dataOf<{ users: Page<{ id: string; name: string; email: string; is_active: boolean }> }>(
        await gql('{ users(limit: 1000) { total limit offset items { id name email is_active } } }'),
      );
      expect(all.users.total).toBe(expected.length);
      expect(all.users.items).toEqual(expected.map((u) => ({ id: u.id, name: u.name, email: u.email, is_active: u.is_active })));

      const entity = server.dataset.entities.find((e) => e.organization_id === orgA)!;
      const inEntity = usersOf(server.dataset, (u) => u.entity_id === entity.id);
      const filtered = dataOf<{ users: Page<{ id: string }> }>(
        await gql('query($e: UUID) { users(entity_id: $e, limit: 3, offset: 1) { total items { id } } }', { e: entity.id }),
      );
      expect(inEntity.length).toBeLessThan(expected.length);
      expect(filtered.users.total).toBe(inEntity.length);
      expect(filtered.users.items.map((u) => u.id)).toEqual(inEntity.slice(1, 4).map((u) => u.id));
    });

    it('fetches one user', async () => {
      const user = server.dataset.users.find((u) => u.organization_id === orgA && u.dealership_id !== null)!;
      const response = await gql('query($id: UUID!) { user(user_id: $id) { id name role created_at last_activity } }', { id: user.id });
      expect(dataOf(response)).toEqual({
        user: {
          id: user.id,
          name: user.name,
          role: user.role,
          created_at: user.created_at.toISOString(),
          last_activity: user.last_activity?.toISOString() ?? null,
        },
      });
    });

    it('lists dealerships by position then name, counting active users', async () => {
      const expected = server.dataset.dealerships
        .filter((d) => d.organization_id === orgA)
        .sort((a, b) => a.position - b.position || a.name.localeCompare(b.name));
      const { dealerships } = dataOf<{ dealerships: Page<{ id: string; name: string; user_count: number; brands: string[] }> }>(
        await gql('{ dealerships { total items { id name user_count brands } } }'),
      );
      expect(dealerships.total).toBe(expected.length);
      expect(dealerships.items).toEqual(
        expected.map((d) => ({
          id: d.id,
          name: d.name,
          brands: d.brands,
          user_count: server.dataset.users.filter((u) => u.dealership_id === d.id && u.is_active).length,
        })),
      );
    });
  });

  describe('relations', () => {
    it('resolves every relation of the compact reports of a page', async () => {
      const expected = reportsOf(server.dataset, orgA);
      const { reports } = dataOf<{
        reports: Page<{
          token: string;
          organization: { id: string };
          dealership: { id: string; name: string } | null;
          profile: { id: string; organization_id: string } | null;
          contact: { id: string } | null;
          counter: { token: string; organization_id: string } | null;
        }>;
      }>(
        await gql(`{ reports(limit: 1000) { items {
          token organization { id } dealership { id name } profile { id organization_id } contact { id } counter { token organization_id }
        } } }`),
      );
      expect(tokens(reports.items)).toEqual(tokens(expected));
      // The page must exercise each relation, or the comparison below proves nothing for it.
      expect(expected.some((r) => r.counter_id)).toBe(true);
      expect(expected.some((r) => r.profile_id === null)).toBe(true);
      for (const [index, item] of reports.items.entries()) {
        const row = expected[index]!;
        expect([item.token, item.organization.id]).toEqual([row.token, orgA]);
        expect(item.dealership).toEqual({
          id: row.dealership_id,
          name: server.dataset.dealerships.find((d) => d.id === row.dealership_id)!.name,
        });
        expect(item.profile?.id ?? null).toBe(row.profile_id);
        expect(item.counter?.token ?? null).toBe(row.counter_id);
        expect(item.contact).toBeNull(); // seeded reports have no contact; see the lead test
      }
    });

    it('resolves every relation of a full report', async () => {
      const row = reportOfType(orgA, 'counter_inspection');
      const original = server.dataset.reports.find((r) => r.token === row.counter_id)!;
      const profile = server.dataset.users.find((u) => u.id === row.profile_id)!;
      const response = await gql(
        `query($id: UUID!) { report(report_id: $id) {
          token organization { id name } dealership { id } profile { id name email phone } contact { id }
          counter { token type data { vehicle { vin } } dealership { id } }
        } }`,
        { id: row.token },
      );
      expect(dataOf(response)).toEqual({
        report: {
          token: row.token,
          organization: { id: orgA, name: server.dataset.organizations[0]!.name },
          dealership: { id: row.dealership_id },
          profile: { id: profile.id, name: profile.name, email: profile.email, phone: profile.phone },
          contact: null,
          counter: {
            token: original.token,
            type: original.type,
            data: { vehicle: { vin: original.data.vehicle.vin } },
            dealership: { id: original.dealership_id },
          },
        },
      });
      // A counter-inspection checks the same car.
      expect(original.data.vehicle.vin).toBe(row.data.vehicle.vin);
    });

    it("resolves a lead's contact on the full and the compact report", async () => {
      const dealership = server.dataset.dealerships.find(
        (d) => d.organization_id === orgA && d.entity_id === server.dataset.entities[0]!.id,
      )!;
      const created = dataOf<{ createLead: { token: string } }>(
        await gql(
          'mutation($d: UUID!) { createLead(dealership: $d, name: "Ada Lovelace", email: "ada@example.com", phone: "+33639981234") { token } }',
          { d: dealership.id },
        ),
      );
      const token = created.createLead.token;
      try {
        const contact = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+33639981234' };
        const full = dataOf<{ report: { contact_id: string; contact: { id: string; name: string; email: string; phone: string } } }>(
          await gql('query($t: UUID!) { report(report_id: $t) { contact_id contact { id name email phone } } }', { t: token }),
        );
        expect(full.report.contact).toEqual({ id: full.report.contact_id, ...contact });
        const listed = dataOf<{ reports: Page<{ token: string; contact: unknown; profile: unknown }> }>(
          await gql('query($c: UUID) { reports(contact_id: $c) { items { token profile { id } contact { id name email phone } } } }', {
            c: full.report.contact_id,
          }),
        );
        expect(listed.reports.items).toEqual([{ token, profile: null, contact: { id: full.report.contact_id, ...contact } }]);
        // Organization B sees neither the lead nor its contact.
        expect(onlyError(await gql('query($t: UUID!) { report(report_id: $t) { token } }', { t: token }, keyB)).extensions.code).toBe(
          'NOT_FOUND',
        );
      } finally {
        // Later tests compare with the seeded rows only.
        const { contact_id } = await server.db.prisma.report.delete({ where: { token }, select: { contact_id: true } });
        if (contact_id) await server.db.prisma.contact.delete({ where: { id: contact_id } });
      }
    });

    it('pages the users and the filtered reports of each dealership', async () => {
      const response = await gql(`{ dealerships { items {
        id
        users(limit: 2, offset: 1) { total limit offset items { id dealership_id } }
        reports(limit: 3, type: inspection) { total items { token dealership_id type } }
      } } }`);
      const { dealerships } = dataOf<{
        dealerships: Page<{
          id: string;
          users: Page<{ id: string; dealership_id: string }>;
          reports: Page<{ token: string; dealership_id: string; type: string }>;
        }>;
      }>(response);
      expect(dealerships.items.length).toBeGreaterThan(1);
      for (const dealership of dealerships.items) {
        const users = usersOf(server.dataset, (u) => u.dealership_id === dealership.id);
        expect(dealership.users.total).toBe(users.length);
        expect([dealership.users.limit, dealership.users.offset]).toEqual([2, 1]);
        expect(dealership.users.items.map((u) => u.id)).toEqual(users.slice(1, 3).map((u) => u.id));
        const reports = reportsOf(server.dataset, orgA, (r) => r.dealership_id === dealership.id && r.type === 'inspection');
        expect(reports.length).toBeGreaterThan(0);
        expect(dealership.reports.total).toBe(reports.length);
        expect(tokens(dealership.reports.items)).toEqual(tokens(reports.slice(0, 3)));
      }
    });

    it("resolves each user's dealership and reports", async () => {
      const response = await gql(`{ users(limit: 1000) { items {
        id dealership { id organization_id }
        reports(limit: 4, offset: 1) { total items { token profile { id } } }
      } } }`);
      const { users } = dataOf<{
        users: Page<{
          id: string;
          dealership: { id: string; organization_id: string } | null;
          reports: Page<{ token: string; profile: { id: string } }>;
        }>;
      }>(response);
      const seeded = usersOf(server.dataset, (u) => u.organization_id === orgA);
      expect(users.items.map((u) => u.id)).toEqual(seeded.map((u) => u.id));
      expect(seeded.some((u) => u.dealership_id === null)).toBe(true);
      for (const [index, user] of users.items.entries()) {
        const row = seeded[index]!;
        expect(user.dealership).toEqual(row.dealership_id ? { id: row.dealership_id, organization_id: orgA } : null);
        const reports = reportsOf(server.dataset, orgA, (r) => r.profile_id === row.id);
        expect(user.reports.total).toBe(reports.length);
        expect(tokens(user.reports.items)).toEqual(tokens(reports.slice(1, 5)));
        expect(user.reports.items.every((r) => r.profile.id === row.id)).toBe(true);
      }
    });
  });

  describe('tenancy', () => {
    const reportB = () => reportsOf(server.dataset, orgB)[0]!;
    const userB = () => server.dataset.users.find((u) => u.organization_id === orgB)!;
    const dealershipB = () => server.dataset.dealerships.find((d) => d.organization_id === orgB)!;

    it("never returns another organization's report or user by id", async () => {
      const report = await gql('query($id: UUID!) { report(report_id: $id) { token } }', { id: reportB().token });
      // GraphQL over HTTP: the operation executed, so 200; the field is null with a NOT_FOUND error.
      expect(report.status).toBe(200);
      expect(onlyError(report)).toMatchObject({ message: 'Report not found', path: ['report'], extensions: { code: 'NOT_FOUND' } });
      expect(report.body.data).toEqual({ report: null });
      const user = await gql('query($id: UUID!) { user(user_id: $id) { id } }', { id: userB().id });
      expect(user.status).toBe(200);
      expect(onlyError(user)).toMatchObject({ message: 'User not found', extensions: { code: 'NOT_FOUND' } });
      // The same ids work for their own organization: the NOT_FOUNDs above are about tenancy.
      expect(dataOf(await gql('query($id: UUID!) { report(report_id: $id) { token } }', { id: reportB().token }, keyB))).toEqual({
        report: { token: reportB().token },
      });
    });

    it('lists only the caller organization', async () => {
      const response = await gql(`{
        reports(limit: 1000) { total items { organization_id } }
        users(limit: 1000) { total items { organization_id } }
        dealerships(limit: 1000) { total items { organization_id } }
      }`);
      const data = dataOf<Record<'reports' | 'users' | 'dealerships', Page<{ organization_id: string }>>>(response);
      expect(data.reports.total).toBe(reportsOf(server.dataset, orgA).length);
      expect(data.users.total).toBe(server.dataset.users.filter((u) => u.organization_id === orgA).length);
      expect(data.dealerships.total).toBe(server.dataset.dealerships.filter((d) => d.organization_id === orgA).length);
      for (const list of [data.reports, data.users, data.dealerships]) {
        expect(list.items.length).toBe(list.total);
        expect(new Set(list.items.map((i) => i.organization_id))).toEqual(new Set([orgA]));
      }
    });

    it("returns empty pages for filters naming another organization's ids", async () => {
      const response = await gql(
        `query($org: UUID, $dealership: UUID, $user: UUID, $token: UUID) {
          byOrg: reports(organization_id: $org) { total items { token } }
          byDealership: reports(dealership_id: $dealership) { total items { token } }
          byProfile: reports(profile_id: $user) { total items { token } }
          byToken: reports(token: $token) { total items { token } }
          byName: reports(organization_name: "Horizon") { total items { token } }
          usersByOrg: users(organization_id: $org) { total items { id } }
          nested: dealerships { items { reports(organization_id: $org) { total items { token } } } }
        }`,
        { org: orgB, dealership: dealershipB().id, user: userB().id, token: reportB().token },
      );
      const data = dataOf<Record<string, Page<unknown>> & { nested: Page<{ reports: Page<unknown> }> }>(response);
      for (const name of ['byOrg', 'byDealership', 'byProfile', 'byToken', 'byName', 'usersByOrg']) {
        expect([name, data[name]!.total, data[name]!.items]).toEqual([name, 0, []]);
      }
      expect(data.nested.items.length).toBeGreaterThan(0);
      expect(data.nested.items.every((d) => d.reports.total === 0 && d.reports.items.length === 0)).toBe(true);
      // The same filters with B's own key do find B's rows.
      const own = dataOf<{ reports: Page<unknown> }>(
        await gql('query($d: UUID) { reports(dealership_id: $d) { total } }', { d: dealershipB().id }, keyB),
      );
      expect(own.reports.total).toBeGreaterThan(0);
    });

    it('resolves nested relations pointing into another organization to null', async () => {
      // Inconsistent on purpose: a report of A whose relations name B's rows. Every loader must
      // still refuse to hand them out.
      const entityA = server.dataset.entities.find((e) => e.organization_id === orgA)!;
      const contactB = await server.db.prisma.contact.create({ data: { organization_id: orgB, name: 'Contact of B' } });
      const crafted = await server.db.prisma.report.create({
        data: {
          organization_id: orgA,
          entity_id: entityA.id,
          dealership_id: dealershipB().id,
          profile_id: userB().id,
          contact_id: contactB.id,
          counter_id: reportB().token,
          type: 'inspection',
          valid: false, // kept out of the default lists other tests compare
        },
      });
      try {
        const relations = 'organization { id } dealership { id } profile { id } contact { id } counter { token }';
        const response = await gql(
          `query($t: UUID!, $tokenFilter: UUID) {
            report(report_id: $t) { token ${relations} }
            reports(token: $tokenFilter, valid: false) { items { token ${relations} } }
          }`,
          { t: crafted.token, tokenFilter: crafted.token },
        );
        const nulls = { organization: { id: orgA }, dealership: null, profile: null, contact: null, counter: null };
        expect(dataOf(response)).toEqual({
          report: { token: crafted.token, ...nulls },
          reports: { items: [{ token: crafted.token, ...nulls }] },
        });
      } finally {
        await server.db.prisma.report.delete({ where: { token: crafted.token } });
        await server.db.prisma.contact.delete({ where: { id: contactB.id } });
      }
    });
  });

  describe('errors', () => {
    it('answers NOT_FOUND as a null field with HTTP 200 for unknown ids, keeping sibling fields', async () => {
      for (const [query, message, field] of [
        ['query($id: UUID!) { report(report_id: $id) { token } }', 'Report not found', 'report'],
        ['query($id: UUID!) { user(user_id: $id) { id } }', 'User not found', 'user'],
      ] as const) {
        const response = await gql(query, { id: randomUUID() });
        expect(response.status).toBe(200);
        expect(onlyError(response)).toMatchObject({ message, path: [field], extensions: { code: 'NOT_FOUND' } });
        expect(response.body.data).toEqual({ [field]: null });
      }
      const siblings = await gql('query($id: UUID!) { dealerships(limit: 1) { total } report(report_id: $id) { token } }', {
        id: randomUUID(),
      });
      expect(siblings.status).toBe(200);
      expect(onlyError(siblings).extensions.code).toBe('NOT_FOUND');
      expect(siblings.body.data).toEqual({ dealerships: { total: expect.any(Number) }, report: null });
    });

    it('rejects a malformed UUID variable as BAD_USER_INPUT, not as a server error', async () => {
      const response = await gql('query($id: UUID!) { report(report_id: $id) { token } }', { id: 'not-a-uuid' });
      expect(response.status).toBe(400);
      const error = onlyError(response);
      expect(error.extensions.code).toBe('BAD_USER_INPUT');
      expect(error.message).toMatch(/\$id.*not a valid UUID/);
      // The same mistake written inline is caught by validation.
      const inline = await gql('{ report(report_id: "not-a-uuid") { token } }');
      expect(inline.status).toBe(400);
      expect(onlyError(inline).extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });

    it('rejects limit and offset out of range, naming the argument', async () => {
      const tooLarge = await gql('query($limit: Int) { reports(limit: $limit) { total } }', { limit: 5000 });
      // An argument the schema's rules refuse is a field error: the operation ran, so 200 with data null.
      expect(tooLarge.status).toBe(200);
      expect(tooLarge.body.data).toBeNull();
      expect(onlyError(tooLarge)).toMatchObject({
        message: 'limit: Input should be less than or equal to 1000',
        extensions: { code: 'BAD_USER_INPUT', argumentName: 'limit' },
      });
      const negative = await gql('{ users(offset: -1) { total } }');
      expect(onlyError(negative).extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'offset' });
      const nested = await gql('{ dealerships(limit: 5) { items { users(limit: 1001) { total } } } }');
      expect(onlyError(nested).extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'limit' });
    });

    it('rejects an unknown order_by field', async () => {
      for (const query of ['{ reports(order_by: "-created_at,colour") { total } }', '{ users(order_by: "vin") { total } }']) {
        const response = await gql(query);
        expect(response.status).toBe(200);
        const error = onlyError(response);
        expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'order_by' });
        expect(error.message).toMatch(/unknown order_by field '(colour|vin)'; allowed: /);
      }
    });

    it('answers UNAUTHENTICATED without a key and with a bogus one', async () => {
      const cases = [
        [undefined, 'Not authenticated'],
        [UNKNOWN_KEY, 'Invalid API key'],
        ['not-even-a-key', 'Invalid API key'],
      ] as const;
      for (const [apiKey, message] of cases) {
        const response = await graphql(server, '{ reports { total } }', {}, apiKey);
        expect([apiKey, response.status]).toEqual([apiKey, 401]);
        expect(onlyError(response)).toMatchObject({ message, extensions: { code: 'UNAUTHENTICATED' } });
        // Refused before execution (a request error): no data entry at all.
        expect(response.body).not.toHaveProperty('data');
      }
    });

    it('enforces the depth limit with a clear message', async () => {
      // Fields nested 9 levels deep: the deepest allowed.
      const atLimit = await gql(
        '{ reports(limit: 2) { items { dealership { reports(limit: 2) { items { profile { reports(limit: 2) { items { token } } } } } } } } }',
      );
      expect(atLimit.body.errors).toBeUndefined();
      const tooDeep = await gql(
        'query TooDeep { reports(limit: 2) { items { dealership { reports(limit: 2) { items { profile { reports(limit: 2) { items { dealership { name } } } } } } } } } }',
      );
      expect(tooDeep.status).toBe(400);
      expect(onlyError(tooDeep)).toMatchObject({
        message: "Operation 'TooDeep' is nested more than 8 levels deep: select fewer nested relations",
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED', maximumDepth: 8 },
      });
      expect(tooDeep.body.data).toBeUndefined();
    });

    it('enforces the cost budget, limits given as variables included', async () => {
      const query =
        'query($outer: Int, $inner: Int) { reports(limit: $outer) { items { dealership { reports(limit: $inner) { items { token } } } } } }';
      const tooCostly = await gql(query, { outer: 1000, inner: 1000 });
      expect(tooCostly.status).toBe(400);
      const error = onlyError(tooCostly);
      expect(error.message).toMatch(/^Query cost \d+ exceeds the maximum of 50000: lower the limits or select fewer fields$/);
      expect(error.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maximumCost: 50000 });
      expect(error.extensions.cost as number).toBeGreaterThan(50000);
      // Nothing ran: no page of reports was read for it.
      server.resetQueryLog();
      await gql(query, { outer: 1000, inner: 1000 });
      expect(server.queries.filter((q) => /\breports\b/.test(q))).toEqual([]);
      // The same shape with small pages is within budget.
      expect((await gql(query, { outer: 10, inner: 10 })).body.errors).toBeUndefined();
      // Prices are remembered per document and per value of the variables that set them: each
      // set of limits keeps its own.
      expect(onlyError(await gql(query, { outer: 1000, inner: 1000 })).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
      expect(onlyError(await gql(query, { outer: 100, inner: 1000 })).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX' });
      expect((await gql(query, { outer: 10, inner: 10 })).body.errors).toBeUndefined();
    });

    it('leaves stack traces out unless GRAPHQL_STACK_TRACES asks for them', async () => {
      const response = await gql('query($id: UUID!) { report(report_id: $id) { token } }', { id: randomUUID() });
      expect(onlyError(response).extensions).not.toHaveProperty('stacktrace');
    });
  });
});

describe.each(['pglite', 'postgres'] as const)('GraphQL errors in production on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 20, config: { nodeEnv: 'production', graphqlStackTraces: true } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('never includes stack traces or file paths', async () => {
    const key = server.keys[0]!;
    const cases: [string, Record<string, unknown>, string | undefined, string][] = [
      ['query($id: UUID!) { report(report_id: $id) { token } }', { id: randomUUID() }, key, 'NOT_FOUND'],
      ['query($id: UUID!) { report(report_id: $id) { token } }', { id: 'nope' }, key, 'BAD_USER_INPUT'],
      ['{ reports(limit: 5000) { total } }', {}, key, 'BAD_USER_INPUT'],
      ['{ reports(order_by: "nope") { total } }', {}, key, 'BAD_USER_INPUT'],
      ['{ reports { total } }', {}, undefined, 'UNAUTHENTICATED'],
      ['{ reports { total } }', {}, UNKNOWN_KEY, 'UNAUTHENTICATED'],
      ['{ reports { nope } }', {}, key, 'GRAPHQL_VALIDATION_FAILED'],
      ['{ reports(limit: 1000) { items { dealership { reports(limit: 1000) { items { token } } } } } }', {}, key, 'QUERY_TOO_COMPLEX'],
      ['{ reports(', {}, key, 'GRAPHQL_PARSE_FAILED'],
    ];
    for (const [query, variables, apiKey, code] of cases) {
      const response = await graphql(server, query, variables, apiKey);
      const error = onlyError(response);
      expect([query, error.extensions.code]).toEqual([query, code]);
      expect(error.extensions).not.toHaveProperty('stacktrace');
      expect(JSON.stringify(response.body)).not.toMatch(/node_modules|\/src\/|\.ts:\d+|\n\s+at /);
    }
  });
});

/** The GraphQL type of each report filter argument, for building variable definitions. */
function variableType(argument: string): string {
  if (argument.endsWith('_id') || argument === 'token') return 'UUID';
  if (argument.startsWith('created_at') || argument.startsWith('updated_at')) return 'DateTimeISO';
  if (argument.endsWith('contains')) return 'JSON';
  if (argument === 'valid') return 'Boolean!';
  if (argument === 'type') return 'ReportType';
  return 'String';
}
