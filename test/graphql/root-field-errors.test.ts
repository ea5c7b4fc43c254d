/**
 * GraphQL executes root fields independently (issue 45, section 2, found by generated queries):
 * each failing root field gets its own error at its own path, whatever the order of the fields and
 * whichever failed first; a non-null one that fails leaves `data` null, but the other fields'
 * errors are still reported. An error's `input` is what was sent, leading control characters
 * included. Over real HTTP, on both databases.
 */
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';

interface ErrorBody {
  message: string;
  path?: string[];
  extensions?: { code?: string; detail?: { input?: unknown; msg?: string }[] };
}

describe.each(DATABASE_KINDS)('root fields fail independently, on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 10 });
  });
  afterAll(() => server.close());

  const send = async (query: string) => {
    const { status, body } = await graphql(server, query, {}, server.keys[0]);
    const errors = (body.errors ?? []) as ErrorBody[];
    return {
      status,
      data: body.data,
      errors: errors.map((e) => ({ path: e.path, code: e.extensions?.code })).sort((a, b) => String(a.path).localeCompare(String(b.path))),
    };
  };

  it('two failing non-null root fields: both errors, in either order', async () => {
    const reports = 'reports(cursor: "not-a-cursor") { limit }';
    const events = 'events(types: "no.such.type") { items { position } }';
    const expected = {
      status: 200,
      data: null,
      errors: [
        { path: ['events'], code: 'BAD_USER_INPUT' },
        { path: ['reports'], code: 'BAD_USER_INPUT' },
      ],
    };
    expect(await send(`{ ${reports} ${events} }`)).toEqual(expected);
    expect(await send(`{ ${events} ${reports} }`)).toEqual(expected);
  });

  it('a failing nullable root field beside others: its own null and error, theirs kept', async () => {
    const answer = await send(
      '{ missing: report(report_id: "00000000-0000-4000-8000-000000000000") { token } reports(limit: 1) { limit } }',
    );
    expect(answer.data).toEqual({ missing: null, reports: { limit: 1 } });
    expect(answer.errors).toEqual([{ path: ['missing'], code: 'NOT_FOUND' }]);
  });

  it.each(['\u007Fóx.y', '\u000Bóx.y', '\u0000x'])(
    'an error’s input is the value sent, a leading control character included (%j)',
    async (sent) => {
      const { body } = await graphql(
        server,
        'query ($t: String) { events(types: $t) { items { position } } }',
        { t: sent },
        server.keys[0],
      );
      const [error] = (body.errors ?? []) as ErrorBody[];
      expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(error?.extensions?.detail?.[0]?.input).toBe(sent);
    },
  );
});
