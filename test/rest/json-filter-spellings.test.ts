/**
 * Every spelling of a JSON filter that a client generator produces either means exactly the
 * filter or is a 422 naming the right spelling (issue 24): JSON text, deepObject brackets (orval,
 * Zodios), the dotted and array forms, non-object values, NaN and Infinity. Real HTTP, both databases.
 */
import { startTestServer, type TestServer } from '../support/server';

interface Page {
  total: number;
  items: { token: string }[];
}
interface ErrorBody {
  detail: { type: string; loc: (string | number)[]; msg: string; input: unknown }[];
}

describe.each(['pglite', 'postgres'] as const)('JSON filter spellings (%s)', (kind) => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 120 });
    key = server.keys[0]!;
  });
  afterAll(async () => {
    await server?.close();
  });

  async function get(query: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${server.url}/public/reports/?limit=1000&${query}`, { headers: { 'x-api-key': key } });
    return { status: response.status, body: await response.json() };
  }
  async function total(query: string): Promise<number> {
    const { status, body } = await get(query);
    if (status !== 200) throw new Error(`${query}: ${status} ${JSON.stringify(body)}`);
    return (body as Page).total;
  }
  const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const b = encodeURIComponent;

  it('deepObject brackets mean the same filter as its JSON text', async () => {
    const all = await total('');
    const sold = await total(`state__contains=${json({ folder_sold: { status: true } })}`);
    expect(sold).toBeGreaterThan(0);
    expect(sold).toBeLessThan(all);
    expect(await total(`${b('state__contains[folder_sold][status]')}=true`)).toBe(sold);
    // Unencoded brackets, as some clients send them.
    expect(await total('state__contains[folder_sold][status]=true')).toBe(sold);
    expect(await total(`${b('state__not_contains[folder_sold][status]')}=true`)).toBe(all - sold);
    // A member's value is JSON when it is JSON text: the quoted "true" is a string, which no state holds.
    expect(await total(`${b('state__contains[folder_sold][status]')}=${b('"true"')}`)).toBe(0);
  });

  it('a bracketed member that is not JSON text is a string', async () => {
    const { body } = await get('limit=1');
    const token = (body as Page).items[0]!.token;
    const report = (await (await fetch(`${server.url}/public/reports/${token}`, { headers: { 'x-api-key': key } })).json()) as {
      data: { vehicle: { specifications: { brand: string } } };
    };
    const brand = report.data.vehicle.specifications.brand;
    const byText = await total(`data__contains=${json({ vehicle: { specifications: { brand } } })}`);
    expect(byText).toBeGreaterThan(0);
    expect(await total(`${b('data__contains[vehicle][specifications][brand]')}=${b(brand)}`)).toBe(byText);
  });

  it.each([['[1,2]'], ['"x"'], ['1'], ['true'], ['NaN'], ['Infinity'], ['-Infinity']])(
    'a non-object value %s is a 422 naming the object spelling',
    async (text) => {
      for (const name of ['data__contains', 'state__contains', 'state__not_contains']) {
        const { status, body } = await get(`${name}=${b(text)}`);
        expect(status).toBe(422);
        expect((body as ErrorBody).detail).toEqual([
          {
            type: 'value_error',
            loc: ['query', name],
            msg: 'Value error, a JSON object is required, e.g. {"folder_sold":{"status":true}}',
            input: text,
            ctx: { error: {} },
          },
        ]);
      }
    },
  );

  it('NaN and Infinity inside a filter never match (no stored JSON holds them), never a 500', async () => {
    const all = await total('');
    for (const text of ['{"folder_sold":{"status":NaN}}', '{"a":Infinity}', '{"a":[-Infinity]}']) {
      expect(await total(`state__contains=${b(text)}`)).toBe(0);
      expect(await total(`data__contains=${b(text)}`)).toBe(0);
      expect(await total(`state__not_contains=${b(text)}`)).toBe(all);
    }
    // and through brackets
    expect(await total(`${b('state__contains[folder_sold][status]')}=NaN`)).toBe(0);
    // `null` nested is a real value (matches the reports whose member is null), not NaN's stand-in
    expect(await total(`state__contains=${b('{"folder_sold":{"status":null}}')}`)).toBe(0);
  });

  it.each([
    ['both spellings', `state__contains=${encodeURIComponent('{}')}&state__contains[a]=1`],
    ['an array item', 'state__contains[]=1'],
    ['a nested array item', 'state__contains[a][]=1'],
    ['a member given twice', 'state__contains[a]=1&state__contains[a]=2'],
    ['a member that is also a parent', 'state__contains[a]=1&state__contains[a][b]=2'],
    ['an unclosed bracket', 'state__contains[a=1'],
    ['trailing text', 'state__contains[a]b=1'],
    ['the dotted spelling', 'state__contains.folder_sold.status=true'],
  ])('%s is a 422 that names the JSON text spelling', async (_name, query) => {
    const { status, body } = await get(query);
    expect(status).toBe(422);
    const [item, ...rest] = (body as ErrorBody).detail;
    expect(rest).toEqual([]);
    expect(item!.type).toBe('value_error');
    expect(item!.loc).toEqual(['query', 'state__contains']);
    expect(item!.msg).toContain('send the filter as JSON text, e.g. state__contains={"folder_sold":{"status":true}}');
  });

  it('the 4,096-character bound counts the text as sent, as the maxLength of the document does', async () => {
    const padded = (length: number) => `{"a":"${'x'.repeat(length - 8)}"}`; // {"a":"…"} is 8 characters + the x's
    expect(padded(4096)).toHaveLength(4096);
    expect(await total(`state__contains=${b(padded(4096))}`)).toBe(0);
    // Whitespace is text too: an object whose compact JSON is short but whose text is over the bound.
    // (`+` is a space in a query string: the request stays under the 8 KiB query bound.)
    const spaced = `${b('{"a":1')}${'+'.repeat(4100)}${b('}')}`;
    for (const encoded of [b(padded(4097)), spaced]) {
      const { status, body } = await get(`state__contains=${encoded}`);
      expect(status).toBe(422);
      expect((body as ErrorBody).detail[0]!.msg).toBe('Value error, JSON value longer than 4096 characters');
    }
  });

  it('GraphQL refuses a non-object filter as bad input', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ reports(state__contains: [1, 2]) { total } }' }),
    });
    const body = (await response.json()) as { errors?: { extensions: { code: string } }[] };
    expect(body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });
});
