/**
 * The OpenAPI document as a generated client reads it: ajv (strict mode, formats checked) compiles
 * every schema of `/openapi.json`, and every answer the real server gives on the documented paths
 * (pages, full reports including leads' nearly empty ones, users, dealerships, a created lead, and
 * the error bodies) validates against the schema the document gives for its status.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startTestServer, type TestServer } from '../support/server';

type Schema = Record<string, unknown>;
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
}

/** `#/components/schemas/X` → `X`, the id each component is registered under. */
function withLocalRefs<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\/([^"]+)"/g, '"$1"')) as T;
}

function openApiAjv(doc: OpenApi): Ajv2020 {
  // OpenAPI 3.1's schemas are JSON Schema 2020-12: ajv's 2020 dialect, strict; OpenAPI's own
  // annotation keywords declared as such.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary(['example', 'externalDocs', 'xml']);
  for (const [name, schema] of Object.entries(withLocalRefs(doc.components.schemas))) ajv.addSchema(schema, name);
  return ajv;
}

describe.each(['pglite', 'postgres'] as const)('answers validate against /openapi.json on %s', (kind) => {
  let server: TestServer;
  let key: string;
  let doc: OpenApi;
  let ajv: Ajv2020;
  const compiled = new Map<string, ValidateFunction>();

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 60 });
    key = server.keys[0]!;
    doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApi;
    ajv = openApiAjv(doc);
  });
  afterAll(() => server.close());

  function validatorFor(path: string, method: string, status: number): ValidateFunction {
    const id = `${method} ${path} ${status}`;
    const existing = compiled.get(id);
    if (existing) return existing;
    const response = doc.paths[path]?.[method]?.responses[String(status)];
    if (!response) throw new Error(`${id} is not documented`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${id} has no JSON schema`);
    const validate = ajv.compile(withLocalRefs(schema));
    compiled.set(id, validate);
    return validate;
  }

  async function expectDocumented(path: string, method: string, response: Response): Promise<unknown> {
    const body: unknown = await response.json();
    const validate = validatorFor(path, method, response.status);
    const valid = validate(body);
    expect({ path, method, status: response.status, errors: valid ? null : validate.errors }).toEqual({
      path,
      method,
      status: response.status,
      errors: null,
    });
    return body;
  }

  const get = (url: string, apiKey: string | null = key) =>
    fetch(`${server.url}${url}`, { headers: apiKey ? { 'x-api-key': apiKey } : {} });

  it('compiles every component schema in strict mode', () => {
    for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.getSchema(name)).not.toThrow();
    expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(10);
  });

  it('validates pages, every full report of the organization (a lead included), users and dealerships', async () => {
    const dealership = server.dataset.dealerships.find((d) => d.organization_id === server.dataset.organizations[0]!.id)!;
    const lead = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ dealership: dealership.id, name: 'Schema Client', email: 'schema.client@example.com', sendEmail: true }),
    });
    expect(lead.status).toBe(201);
    await expectDocumented('/public/reports/create-lead', 'post', lead);

    const page = (await expectDocumented('/public/reports/', 'get', await get('/public/reports/?limit=1000'))) as {
      items: { token: string }[];
    };
    expect(page.items.length).toBeGreaterThan(20);
    for (const { token } of page.items) await expectDocumented('/public/reports/{report_id}', 'get', await get(`/public/reports/${token}`));

    const users = (await expectDocumented('/public/users/', 'get', await get('/public/users/?limit=1000'))) as { items: { id: string }[] };
    for (const { id } of users.items.slice(0, 10))
      await expectDocumented('/public/users/{user_id}', 'get', await get(`/public/users/${id}`));
    await expectDocumented('/public/dealerships/', 'get', await get('/public/dealerships/'));
  });

  it('validates the error answers: 401, 404, 422', async () => {
    await expectDocumented('/public/reports/', 'get', await get('/public/reports/', null));
    await expectDocumented('/public/reports/', 'get', await get('/public/reports/', `vr_live_${'A'.repeat(32)}`));
    await expectDocumented('/public/reports/{report_id}', 'get', await get('/public/reports/00000000-0000-4000-8000-000000000000'));
    await expectDocumented('/public/reports/', 'get', await get('/public/reports/?limit=x&order_by=nope'));
    await expectDocumented('/public/users/{user_id}', 'get', await get('/public/users/not-a-uuid'));
    const badLead = await fetch(`${server.url}/public/reports/create-lead`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bad' }),
    });
    await expectDocumented('/public/reports/create-lead', 'post', badLead);
  });

  it('validates what the HTTP layer answers itself: 400, 413, 414', async () => {
    const lead = (body: string) =>
      fetch(`${server.url}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body,
      });
    const unreadable = await lead('{"dealership": ');
    expect(unreadable.status).toBe(422);
    await expectDocumented('/public/reports/create-lead', 'post', unreadable);
    const tooDeep = await lead(`${'['.repeat(2_000)}${']'.repeat(2_000)}`);
    expect(tooDeep.status).toBe(400);
    await expectDocumented('/public/reports/create-lead', 'post', tooDeep);
    const tooLarge = await lead(JSON.stringify({ name: 'x'.repeat(200_000) }));
    expect(tooLarge.status).toBe(413);
    await expectDocumented('/public/reports/create-lead', 'post', tooLarge);
    const longQuery = await get(`/public/reports/?search=${'x'.repeat(9_000)}`);
    expect(longQuery.status).toBe(414);
    await expectDocumented('/public/reports/', 'get', longQuery);
  });
});
