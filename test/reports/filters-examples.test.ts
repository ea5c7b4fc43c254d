/**
 * One or more worked examples per filter of GET /public/reports/ (and the users and dealerships
 * lists), over real HTTP on a seeded database, on PGlite and on PostgreSQL. Each example checks a
 * concrete fact about the seeded data (a report exactly at a bound is listed, a substring brand is
 * not, ...) and, where useful, the whole answer against the in-memory reading of api-behaviour.md.
 */
import { startTestServer, type TestServer } from '../support/server';
import {
  expectedDealerships,
  expectedReports,
  expectedUsers,
  getJson,
  queryString,
  reportFacts,
  type PageBody,
  type PageInput,
  type ReportFacts,
  type ReportFilterInput,
} from './filters-oracle';

interface ReportItem {
  token: string;
  created_at: string;
  updated_at: string;
  organization_id: string;
  dealership_id: string | null;
  data: { vehicle: { vin: string | null; license_number: string | null } };
}

interface IdItem {
  id: string;
}

describe.each(['pglite', 'postgres'] as const)('report filters by example (%s)', (kind) => {
  let server: TestServer;
  let facts: ReportFacts[];
  let orgId: string;
  let otherOrgId: string;
  let key: string;
  /** Valid reports of the first organization, oldest first. */
  let mine: ReportFacts[];

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 300 });
    facts = reportFacts(server.dataset);
    orgId = server.dataset.organizations[0]!.id;
    otherOrgId = server.dataset.organizations[1]!.id;
    key = server.keys[0]!;
    mine = facts.filter((r) => r.row.organization_id === orgId && r.row.valid);
  });

  afterAll(async () => {
    await server?.close();
  });

  async function listReports(query: Record<string, unknown>): Promise<PageBody<ReportItem>> {
    const { status, body } = await getJson<PageBody<ReportItem>>(`${server.url}/public/reports/${queryString(query)}`, key);
    if (status !== 200) throw new Error(`GET /public/reports/ ${JSON.stringify(query)}: ${status} ${JSON.stringify(body)}`);
    return body;
  }

  const tokensOf = (body: PageBody<ReportItem>) => body.items.map((item) => item.token);

  /** The API's answer equals the oracle's, and the example is not vacuous (unless told so). */
  async function expectAsSpecified(filters: ReportFilterInput, p: PageInput = {}, { allowEmpty = false } = {}) {
    const body = await listReports({ ...filters, ...p });
    const expected = expectedReports(facts, orgId, filters, p);
    expect({ tokens: tokensOf(body), total: body.total }).toEqual(expected);
    if (!allowEmpty) expect(expected.total).toBeGreaterThan(0);
    return body;
  }

  const at = (r: ReportFacts) => mine.indexOf(r);
  const factOf = (token: string): ReportFacts => facts.find((r) => r.row.token === token)!;
  const someReport = (predicate: (r: ReportFacts) => boolean = () => true): ReportFacts => {
    const found = mine.filter(predicate);
    if (found.length === 0) throw new Error('the seeded dataset has no such report');
    return found[Math.floor(found.length / 2)]!;
  };
  const plusMs = (date: Date, ms: number) => new Date(date.getTime() + ms);

  describe('dates: inclusive bounds', () => {
    it('a report created exactly at created_at__gte / __lte is listed; one millisecond later it is not', async () => {
      const r = someReport();
      const exact = await listReports({ created_at__gte: r.row.created_at, created_at__lte: r.row.created_at });
      expect(tokensOf(exact)).toContain(r.row.token);
      expect(exact.items.every((item) => item.created_at === r.row.created_at.toISOString())).toBe(true);

      expect(
        tokensOf(await listReports({ created_at__gte: plusMs(r.row.created_at, 1), created_at__lte: plusMs(r.row.created_at, 1) })),
      ).not.toContain(r.row.token);
      expect(tokensOf(await listReports({ created_at__lte: plusMs(r.row.created_at, -1), limit: 1000 }))).not.toContain(r.row.token);
    });

    it('updated_at bounds are inclusive too', async () => {
      const r = someReport((x) => x.row.updated_at.getTime() !== x.row.created_at.getTime());
      const exact = await listReports({ updated_at__gte: r.row.updated_at, updated_at__lte: r.row.updated_at });
      expect(tokensOf(exact)).toContain(r.row.token);
      expect(tokensOf(await listReports({ updated_at__gte: plusMs(r.row.updated_at, 1), limit: 1000 }))).not.toContain(r.row.token);
    });

    it('a range lists exactly the reports inside it', async () => {
      const from = mine[Math.floor(mine.length / 4)]!.row.created_at;
      const to = mine[Math.floor(mine.length / 2)]!.row.created_at;
      const body = await expectAsSpecified({ created_at__gte: from, created_at__lte: to }, { limit: 1000 });
      expect(body.total).toBe(mine.filter((r) => r.row.created_at >= from && r.row.created_at <= to).length);
    });

    it('a date alone means midnight UTC', async () => {
      const r = someReport();
      const day = r.row.created_at.toISOString().slice(0, 10);
      const midnight = new Date(`${day}T00:00:00Z`);
      const next = new Date(midnight.getTime() + 86_400_000 - 1);
      const body = await listReports({ created_at__gte: day, created_at__lte: next, limit: 1000 });
      expect(tokensOf(body)).toEqual(
        expectedReports(facts, orgId, { created_at__gte: midnight, created_at__lte: next }, { limit: 1000 }).tokens,
      );
      expect(tokensOf(body)).toContain(r.row.token);
      // no offset means UTC
      const local = await listReports({ created_at__gte: `${day}T00:00:00`, created_at__lte: next, limit: 1000 });
      expect(tokensOf(local)).toEqual(tokensOf(body));
    });
  });

  describe('exact ids', () => {
    it.each(['dealership_id', 'entity_id', 'profile_id', 'counter_id', 'token'] as const)('%s', async (field) => {
      const r = someReport((x) => x.row[field] !== null);
      const value = r.row[field]!;
      const body = await expectAsSpecified({ [field]: value }, { limit: 1000 });
      expect(tokensOf(body)).toContain(r.row.token);
      if (field === 'token') expect(body.total).toBe(1);
    });

    it('organization_id: the own one lists everything, another one lists nothing', async () => {
      expect((await listReports({ organization_id: orgId })).total).toBe(mine.length);
      const other = await listReports({ organization_id: otherOrgId });
      expect(other).toMatchObject({ items: [], total: 0 });
    });

    it("another organization's dealership or token lists nothing", async () => {
      const theirs = facts.find((r) => r.row.organization_id === otherOrgId && r.row.valid)!;
      expect((await listReports({ dealership_id: theirs.row.dealership_id })).total).toBe(0);
      expect((await listReports({ token: theirs.row.token })).total).toBe(0);
    });
  });

  describe('vin and license_number: exact, case-insensitive, spaces and dashes ignored', () => {
    it('a VIN in lower case, with spaces or dashes, finds its report', async () => {
      const r = someReport((x) => x.vin !== null);
      const vin = r.vin!;
      for (const form of [vin, vin.toLowerCase(), `${vin.slice(0, 3)} ${vin.slice(3, 9)}-${vin.slice(9)}`.toLowerCase()]) {
        const body = await expectAsSpecified({ vin: form });
        expect(tokensOf(body)).toContain(r.row.token);
      }
      // exact, not a substring
      await expectAsSpecified({ vin: vin.slice(0, -1) }, {}, { allowEmpty: true });
      expect((await listReports({ vin: vin.slice(0, -1) })).total).toBe(0);
    });

    it('AB-123-CD = ab123cd = ab 123 cd', async () => {
      const r = someReport((x) => /^[A-Z]{2}-\d{3}-[A-Z]{2}$/.test(x.license_number ?? ''));
      const plate = r.license_number!;
      const forms = [plate, plate.replace(/-/g, '').toLowerCase(), plate.replace(/-/g, ' ').toLowerCase(), ` ${plate.toLowerCase()} `];
      const answers = await Promise.all(forms.map((form) => listReports({ license_number: form })));
      for (const body of answers) {
        expect(tokensOf(body)).toContain(r.row.token);
        expect(tokensOf(body)).toEqual(tokensOf(answers[0]!));
      }
      expect((await listReports({ license_number: plate.slice(0, 6) })).total).toBe(0);
    });
  });

  describe('brand and version: exact, case-insensitive', () => {
    it('brand in any case matches; a substring does not', async () => {
      const brand = someReport((x) => x.brand === 'Renault').brand!;
      const lowerCase = await expectAsSpecified({ brand: brand.toLowerCase() }, { limit: 1000 });
      const upperCase = await listReports({ brand: brand.toUpperCase(), limit: 1000 });
      expect(tokensOf(upperCase)).toEqual(tokensOf(lowerCase));
      expect(lowerCase.total).toBe(mine.filter((r) => r.brand === brand).length);
      expect((await listReports({ brand: brand.slice(0, -1) })).total).toBe(0);
      // "Mercedes" is a prefix of the brand "Mercedes-Benz", not the brand
      expect((await listReports({ brand: 'Mercedes' })).total).toBe(0);
    });

    it('version (data.metadata.version) is exact', async () => {
      const version = someReport((x) => x.version !== null).version!;
      await expectAsSpecified({ version }, { limit: 1000 });
      expect((await listReports({ version: version.split('.').slice(0, 2).join('.') })).total).toBe(0);
    });
  });

  describe('names: case-insensitive substring', () => {
    it('organization_name', async () => {
      expect((await listReports({ organization_name: 'MISTRAL' })).total).toBe(mine.length);
      expect((await listReports({ organization_name: 'flotte' })).total).toBe(0);
    });

    it('dealership_name', async () => {
      const body = await expectAsSpecified({ dealership_name: 'lyon' }, { limit: 1000 });
      const lyon = server.dataset.dealerships.find((d) => d.name === 'Mistral Lyon Gerland')!;
      expect(body.items.every((item) => item.dealership_id === lyon.id)).toBe(true);
    });

    it('entity_name', async () => {
      await expectAsSpecified({ entity_name: 'rhône-alpes' }, { limit: 1000 });
      await expectAsSpecified({ entity_name: 'provence sas' }, { limit: 1000 });
    });
  });

  describe('search', () => {
    it('one term: a client last name, any case', async () => {
      const r = someReport((x) => x.client_name !== null);
      const lastName = r.client_name!.split(' ').pop()!;
      const body = await expectAsSpecified({ search: lastName.toUpperCase() }, { limit: 1000 });
      expect(tokensOf(body)).toContain(r.row.token);
    });

    it('every term must match, each in a field of its own', async () => {
      const r = someReport((x) => x.brand !== null && x.client_name !== null);
      const firstName = r.client_name!.split(' ')[0]!;
      const both = await expectAsSpecified({ search: `${r.brand!.toLowerCase()}   ${firstName}` }, { limit: 1000 });
      expect(tokensOf(both)).toContain(r.row.token);
      const brandOnly = await listReports({ search: r.brand!, limit: 1000 });
      expect(both.total).toBeLessThan(brandOnly.total);
      // a term found nowhere empties the result
      expect((await listReports({ search: `${r.brand} zzqqxx` })).total).toBe(0);
    });

    it('a term spanning two fields does not match', async () => {
      const r = someReport((x) => x.brand !== null && x.model !== null);
      // brand and model are separate fields: "renaultclio" is in neither
      expect((await listReports({ search: `${r.brand}${r.model}`.replace(/\s+/g, '') })).total).toBe(0);
    });

    it('finds the plate with or without dashes, the e-mail, the phone, the folder name and the dealership name', async () => {
      const r = someReport((x) => /^[A-Z]{2}-\d{3}-[A-Z]{2}$/.test(x.license_number ?? ''));
      for (const term of [
        r.license_number!.toLowerCase(),
        r.license_number!.replace(/-/g, '').slice(1, 6),
        r.client_email!,
        r.client_phone!.slice(-6),
        r.folder_name!.split(' ')[0]!,
        'gerland',
      ]) {
        const body = await expectAsSpecified({ search: term }, { limit: 1000 });
        if (term !== 'gerland') expect(tokensOf(body)).toContain(r.row.token);
      }
    });

    it('LIKE wildcards in a term are literal', async () => {
      for (const term of ['%', '_', 'a%e', 'mistral_', '\\']) {
        const body = await expectAsSpecified({ search: term }, {}, { allowEmpty: true });
        expect(body.total).toBe(0);
      }
      // "r_nault" would match "renault" if `_` were a wildcard
      expect((await listReports({ search: 'r_nault' })).total).toBe(0);
    });
  });

  describe('valid and type', () => {
    it('valid defaults to true; valid=false lists only the invalid reports', async () => {
      const byDefault = await listReports({ limit: 1000 });
      expect((await listReports({ valid: true, limit: 1000 })).total).toBe(byDefault.total);
      // the REST item (spec 2.2) does not show `valid`: look the reports up in the seeded rows
      expect(tokensOf(byDefault).every((token) => factOf(token).row.valid)).toBe(true);
      const invalid = await expectAsSpecified({ valid: false }, { limit: 1000 });
      expect(tokensOf(invalid).every((token) => !factOf(token).row.valid)).toBe(true);
      const all = facts.filter((r) => r.row.organization_id === orgId).length;
      expect(byDefault.total + invalid.total).toBe(all);
    });

    it('type', async () => {
      const body = await expectAsSpecified({ type: 'remote' }, { limit: 1000 });
      expect(tokensOf(body).every((token) => factOf(token).row.type === 'remote')).toBe(true);
    });
  });

  describe('JSON containment', () => {
    it('data__contains a nested fragment', async () => {
      const r = someReport((x) => x.brand === 'Renault');
      const byJson = await expectAsSpecified({ data__contains: { vehicle: { specifications: { brand: 'Renault' } } } }, { limit: 1000 });
      expect(tokensOf(byJson)).toEqual(tokensOf(await listReports({ brand: 'Renault', limit: 1000 })));
      expect(tokensOf(byJson)).toContain(r.row.token);
      // case matters in JSON containment, unlike the brand filter
      expect((await listReports({ data__contains: { vehicle: { specifications: { brand: 'renault' } } } })).total).toBe(0);
    });

    it('data__contains an element of an array', async () => {
      const r = someReport((x) => x.row.data.vehicle.damages.length > 0);
      const damage = r.row.data.vehicle.damages[0]!;
      const body = await expectAsSpecified(
        { data__contains: { vehicle: { damages: [{ zone: damage.zone, type: damage.type }] } } },
        { limit: 1000 },
      );
      expect(tokensOf(body)).toContain(r.row.token);
    });

    it('state__contains and state__not_contains split the reports in two', async () => {
      const sold = { folder_sold: { status: true } };
      const yes = await expectAsSpecified({ state__contains: sold }, { limit: 1000 });
      const no = await expectAsSpecified({ state__not_contains: sold }, { limit: 1000 });
      expect(yes.total + no.total).toBe(mine.length);
      expect(tokensOf(yes).filter((token) => tokensOf(no).includes(token))).toEqual([]);
    });
  });

  describe('order_by and paging', () => {
    it.each([
      '-created_at',
      'created_at',
      'brand,-created_at',
      '-vin',
      'license_number',
      'dealership_name,-updated_at',
      'type,brand',
      '-token',
      'updated_at,token',
    ])('order_by=%s', async (order_by) => {
      await expectAsSpecified({}, { order_by, limit: 1000 });
    });

    it('walking every page with limit 7 yields every match exactly once, in order', async () => {
      for (const order_by of ['brand', '-dealership_name', 'type']) {
        const filters = { created_at__gte: mine[Math.floor(mine.length / 3)]!.row.created_at };
        const seen: string[] = [];
        let total = -1;
        for (let offset = 0; total < 0 || offset < total; offset += 7) {
          const body = await listReports({ ...filters, order_by, limit: 7, offset });
          expect(body.items.length).toBeLessThanOrEqual(7);
          total = body.total;
          seen.push(...tokensOf(body));
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual(expectedReports(facts, orgId, filters, { order_by, limit: 1000 }).tokens);
        expect(seen.length).toBeGreaterThan(7);
      }
    });

    it('total ignores limit and offset', async () => {
      const all = await listReports({ limit: 1000 });
      expect(all.total).toBe(mine.length);
      expect(await listReports({ limit: 0 })).toMatchObject({ items: [], total: mine.length, limit: 0 });
      expect(await listReports({ offset: mine.length + 5 })).toMatchObject({ items: [], total: mine.length });
      const middle = await listReports({ limit: 5, offset: 10 });
      expect(middle.total).toBe(mine.length);
      expect(tokensOf(middle)).toEqual(tokensOf(all).slice(10, 15));
    });

    it('the default order is newest first', async () => {
      const body = await listReports({ limit: 3 });
      const newest = [...mine].sort((a, b) => b.row.created_at.getTime() - a.row.created_at.getTime()).slice(0, 3);
      expect(tokensOf(body)).toEqual(newest.map((r) => r.row.token));
      expect(at(newest[0]!)).toBe(mine.length - 1);
    });

    it('an unknown order_by field is a 422 on order_by', async () => {
      const { status, body } = await getJson<{ detail: { loc: string[] }[] }>(`${server.url}/public/reports/?order_by=brand,-colour`, key);
      expect(status).toBe(422);
      expect(body.detail[0]!.loc).toEqual(['query', 'order_by']);
    });
  });

  describe('users', () => {
    async function listUsers(query: Record<string, unknown>): Promise<PageBody<IdItem>> {
      const { status, body } = await getJson<PageBody<IdItem>>(`${server.url}/public/users/${queryString(query)}`, key);
      expect(status).toBe(200);
      return body;
    }
    const idsOf = (body: PageBody<IdItem>) => body.items.map((item) => item.id);

    it('created_at bounds are inclusive', async () => {
      const users = server.dataset.users.filter((u) => u.organization_id === orgId);
      const u = users[Math.floor(users.length / 2)]!;
      const exact = await listUsers({ created_at__gte: u.created_at, created_at__lte: u.created_at });
      expect(idsOf(exact)).toContain(u.id);
      expect(idsOf(await listUsers({ created_at__gte: plusMs(u.created_at, 1) }))).not.toContain(u.id);
      const filters = { created_at__gte: u.created_at };
      expect(idsOf(await listUsers(filters))).toEqual(expectedUsers(server.dataset.users, orgId, filters).ids);
    });

    it('organization_id and entity_id', async () => {
      const entity = server.dataset.entities.find((e) => e.organization_id === orgId)!;
      const body = await listUsers({ entity_id: entity.id });
      expect(idsOf(body)).toEqual(expectedUsers(server.dataset.users, orgId, { entity_id: entity.id }).ids);
      expect(body.total).toBeGreaterThan(0);
      expect((await listUsers({ organization_id: otherOrgId })).total).toBe(0);
      expect((await listUsers({ organization_id: orgId })).total).toBe(
        server.dataset.users.filter((u) => u.organization_id === orgId).length,
      );
    });

    it.each(['name', '-name', 'email,-created_at', 'last_activity', '-last_activity', 'created_at'])('order_by=%s', async (order_by) => {
      const body = await listUsers({ order_by });
      expect(idsOf(body)).toEqual(expectedUsers(server.dataset.users, orgId, {}, { order_by }).ids);
    });
  });

  describe('dealerships', () => {
    async function listDealerships(query: Record<string, unknown>): Promise<PageBody<IdItem>> {
      const { status, body } = await getJson<PageBody<IdItem>>(`${server.url}/public/dealerships/${queryString(query)}`, key);
      expect(status).toBe(200);
      return body;
    }

    it('default order (position, name) and paging', async () => {
      const all = expectedDealerships(server.dataset.dealerships, orgId);
      expect(all.total).toBeGreaterThan(3);
      const first = await listDealerships({ limit: 3 });
      const rest = await listDealerships({ limit: 3, offset: 3 });
      expect(first.total).toBe(all.total);
      expect([...first.items, ...rest.items].map((d) => d.id)).toEqual(all.ids.slice(0, 6));
    });

    it.each(['name', '-name', 'created_at', '-position'])('order_by=%s', async (order_by) => {
      const body = await listDealerships({ order_by });
      expect(body.items.map((d) => d.id)).toEqual(expectedDealerships(server.dataset.dealerships, orgId, { order_by }).ids);
    });
  });
});
