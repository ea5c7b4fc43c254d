/**
 * One REST request, one route match: the front layer, the access log and the metrics read the
 * match made when the request arrived (api/request-route.ts), and sofa's endpoint is called with
 * the route already known. Counted on the matcher itself over real HTTP, on both databases.
 */
import { jest } from '@jest/globals';
import { RestRouteTable } from '../../src/api/rest/routes';
import { startTestServer, type TestServer } from '../support/server';
import { dealershipOf, postLead, setQuota } from '../notifications/support';

describe.each(['pglite', 'postgres'] as const)('REST route matching (%s)', (kind) => {
  let server: TestServer;
  let match: ReturnType<typeof spyOnMatch>;
  const spyOnMatch = () => jest.spyOn(RestRouteTable.prototype, 'match');

  beforeAll(async () => {
    match = spyOnMatch();
    server = await startTestServer(kind, { reports: 10 });
  });
  afterAll(async () => {
    match?.mockRestore();
    await server?.close();
  });

  /** The matcher's calls during `request`, and what it said. */
  async function matchesDuring(request: () => Promise<number>): Promise<{ status: number; calls: unknown[][]; results: unknown[] }> {
    match.mockClear();
    const status = await request();
    return { status, calls: match.mock.calls, results: match.mock.results.map((r) => r.value) };
  }

  it('matches a page, a fetch-one and a lead once each, and serves what it matched', async () => {
    const organization = server.dataset.organizations[0]!;
    const key = server.keys[0]!;
    const report = server.dataset.reports.find((r) => r.organization_id === organization.id)!;
    const get = (path: string) => async () => (await fetch(`${server.url}${path}`, { headers: { 'x-api-key': key } })).status;

    const page = await matchesDuring(get('/public/reports/?limit=3'));
    expect(page.status).toBe(200);
    expect(page.calls).toEqual([['GET', '/public/reports/']]);
    expect(page.results).toMatchObject([{ kind: 'route', template: '/public/reports/' }]);

    const one = await matchesDuring(get(`/public/reports/${report.token}`));
    expect(one.status).toBe(200);
    expect(one.calls).toEqual([['GET', `/public/reports/${report.token}`]]);
    expect(one.results).toMatchObject([
      { kind: 'route', template: '/public/reports/{report_id}', parameters: { report_id: report.token } },
    ]);

    const { dealership, entityId } = dealershipOf(server, 0);
    await setQuota(server, entityId, 1_000);
    const lead = await matchesDuring(async () => (await postLead(server, key, { dealership: dealership.id, name: 'Matched Once' })).status);
    expect(lead.status).toBe(201);
    expect(lead.calls).toEqual([['POST', '/public/reports/create-lead']]);
    expect(lead.results).toMatchObject([{ kind: 'route', template: '/public/reports/create-lead' }]);
  });

  it('matches refusals once too: a 307, a 404, a 405 and a 422', async () => {
    const key = server.keys[0]!;
    const send = (method: string, path: string) => async () =>
      (await fetch(`${server.url}${path}`, { method, headers: { 'x-api-key': key }, redirect: 'manual' })).status;
    for (const [method, path, status] of [
      ['GET', '/public/reports', 307],
      ['GET', '/public/no-such-route/', 404],
      ['DELETE', '/public/reports/', 405],
      ['GET', '/public/reports/?limit=many', 422],
    ] as const) {
      const seen = await matchesDuring(send(method, path));
      expect(seen.status).toBe(status);
      expect(seen.calls).toHaveLength(1);
    }
  });

  it('never matches a path outside /public', async () => {
    const seen = await matchesDuring(async () => (await fetch(`${server.url}/healthz`)).status);
    expect(seen.status).toBe(200);
    expect(seen.calls).toHaveLength(0);
  });
});
