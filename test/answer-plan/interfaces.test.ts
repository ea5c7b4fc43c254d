/**
 * Both interfaces answer a report and a page by the same plan, inside their own pipeline (issue
 * 44): REST's fetch-one and list routes and GraphQL's `report` and `reports` fields, over real HTTP
 * on both databases. Each answer equals graphql-js's own over the same database, byte for byte;
 * the metric `vr_answer_plan_answers_total` says how it was answered: written by PostgreSQL, or a
 * row handed to the typed path (a stored value PostgreSQL does not write as graphql-js does).
 */
import { execute, parse } from 'graphql';
import { buildAppSchema } from '../../src/api/graphql/schema';
import { createRequestContext, type ApiServices } from '../../src/api/request-context';
import { restDocumentFor } from '../../src/api/rest/rest-documents';
import { REST_ROUTES } from '../../src/api/rest/routes';
import { CursorCodec } from '../../src/shared/cursor';
import { DATABASE_KINDS } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';

describe.each(DATABASE_KINDS)('the answer plan behind both interfaces, on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let organizationId: string;
  let token: string;
  let odd: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 40, config: { cursorSecret: 'interfaces test' } });
    key = server.keys[0]!;
    organizationId = server.dataset.organizations[0]!.id;
    const own = server.dataset.reports.filter((r) => r.organization_id === organizationId);
    token = own[0]!.token;
    odd = own[1]!.token;
    // A value graphql-js completes with an error (an object where a String is): the row's typed path.
    await server.db.prisma.$executeRawUnsafe(
      `UPDATE reports SET data = jsonb_set(data, '{vehicle,vin}', '{"odd": 1}') WHERE token = $1::uuid`,
      odd,
    );
  });
  afterAll(() => server.close());

  /** What graphql-js answers for a document over the same database. */
  const graphqlJs = async (document: string, variables: Record<string, unknown>) => {
    const services = {
      db: server.db,
      appBaseUrl: server.config.appBaseUrl,
      cursors: new CursorCodec('interfaces test'),
    } as unknown as ApiServices;
    const context = createRequestContext(services, { principal: { organizationId } as never, log: () => console as never });
    return execute({ schema: await buildAppSchema(), document: parse(document), contextValue: context, variableValues: variables });
  };
  const restDocument = async (field: string) => {
    const { print } = await import('graphql');
    return print(
      restDocumentFor(
        await buildAppSchema(),
        REST_ROUTES.find((route) => route.field === field)!,
      ),
    );
  };
  const answered = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const count = (field: string, path: string) =>
      Number(new RegExp(`^vr_answer_plan_answers_total\\{field="${field}",path="${path}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { written: count('report', 'written') + count('reports', 'written'), typedRow: count('report', 'typed_row') };
  };
  const rest = async (path: string) => {
    const response = await fetch(`${server.url}/public/reports/${path}`, { headers: { 'x-api-key': key } });
    return { status: response.status, text: await response.text() };
  };
  const post = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, text: await response.text() };
  };

  it('REST fetch-one and a GraphQL report of the same selection: written by PostgreSQL, graphql-js’s bytes', async () => {
    const before = await answered();
    const document = await restDocument('Query.report');
    const oracle = JSON.stringify((await graphqlJs(document, { report_id: token })).data!.report);
    expect(await rest(token)).toEqual({ status: 200, text: oracle });
    expect(await post(document, { report_id: token })).toEqual({ status: 200, text: `{"data":{"report":${oracle}}}\n` });
    const after = await answered();
    expect(after.written - before.written).toBe(2);
    expect(after.typedRow).toBe(before.typedRow);
  });

  it('a selection other than REST’s, with aliases, a fragment and relations: the same', async () => {
    const query = `query One($id: UUID!) { report(report_id: $id) { id t: token ...Parts dealership { name user_count brands } organization { name } } }
      fragment Parts on Report { data { vehicle { vin specifications { brand age keys } tires { ...Tires } } metadata { individual { latitude longitude } } } state { folder_sold { status date } } real_costs { salesPrice } }
      fragment Tires on VehicleTires { FLDepth FLBrand providers }`;
    const before = await answered();
    const oracle = await graphqlJs(query, { id: token });
    expect(await post(query, { id: token })).toEqual({ status: 200, text: `${JSON.stringify({ data: oracle.data })}\n` });
    expect((await answered()).written - before.written).toBe(1);
  });

  it('a row PostgreSQL does not write is handed to the typed path: graphql-js’s answer, its error at its path', async () => {
    const before = await answered();
    const document = await restDocument('Query.report');
    const oracle = await graphqlJs(document, { report_id: odd });
    expect(oracle.errors?.map((error) => error.message)).toEqual(['String cannot represent value: { odd: 1 }']);
    const overGraphql = JSON.parse((await post(document, { report_id: odd })).text) as {
      data: unknown;
      errors: { message: string; path: unknown }[];
    };
    expect(overGraphql.data).toEqual(JSON.parse(JSON.stringify(oracle.data)));
    // A stored value the schema refuses is the service's fault, masked as every internal error is (format-error.ts).
    expect(overGraphql.errors.map(({ message, path }) => ({ message, path }))).toEqual([
      { message: 'Internal server error', path: ['report', 'data', 'vehicle', 'vin'] },
    ]);
    expect((await answered()).typedRow - before.typedRow).toBe(1);
  });

  it('REST’s list and a GraphQL page: items written by PostgreSQL, envelope and cursor as the typed path writes them', async () => {
    const before = await answered();
    const document = await restDocument('Query.reports');
    const oracle = JSON.stringify((await graphqlJs(document, { limit: 7, offset: 0, valid: true, order_by: '-vin' })).data!.reports);
    expect(await rest('?limit=7&order_by=-vin')).toEqual({ status: 200, text: oracle });
    const page = `{ reports(limit: 5, type: inspection) { __typename total items { id token profile { name } counter { token } data { vehicle { vin } } } pageInfo { hasNextPage endCursor } next_cursor } }`;
    expect(await post(page, {})).toEqual({ status: 200, text: `${JSON.stringify({ data: (await graphqlJs(page, {})).data })}\n` });
    expect((await answered()).written - before.written).toBe(2);
  });
});
