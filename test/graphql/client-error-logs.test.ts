/**
 * A client's own mistakes (issue 22: invalid UUID or date literals, wrongly typed variables, a
 * document too deep) are its answer, not the operator's concern: never logged at error level nor
 * with a stack (a fuzz run wrote ~15,800 such lines). Read from the logger's own stream.
 */
import pino from 'pino';
import { logger } from '../../src/platform/logger';
import { DATABASE_KINDS } from '../support/databases';
import { graphql, startTestServer, type TestServer } from '../support/server';

describe.each(DATABASE_KINDS)('client errors in the log on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 5 });
  });
  afterAll(() => server.close());

  it('logs bad literals, wrongly typed variables and too deep documents below error level, without a stack', async () => {
    const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
    const lines: string[] = [];
    const write = jest.spyOn(stream, 'write').mockImplementation((line: string) => {
      lines.push(line);
      return true;
    });
    const level = logger.level;
    logger.level = 'debug';
    try {
      const key = server.keys[0]!;
      const answers = [
        await graphql(server, '{ report(report_id: "not-a-uuid") { token } }', {}, key),
        await graphql(server, '{ reports(created_at__gte: "yesterday") { total } }', {}, key),
        await graphql(server, 'query ($id: UUID!) { report(report_id: $id) { token } }', { id: 42 }, key),
        await graphql(server, '{ reports(limit: 100000) { total } }', {}, key),
        await graphql(server, `{ reports { items { ${'counter { '.repeat(20)}token${' }'.repeat(20)} } } }`, {}, key),
      ];
      for (const answer of answers)
        expect(answer.body.errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|GRAPHQL_VALIDATION_FAILED|QUERY_TOO_COMPLEX/);
    } finally {
      logger.level = level;
      write.mockRestore();
    }
    const records = lines
      .flatMap((line) => line.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { level: number; msg?: string; err?: { stack?: string }; req?: { id?: string } });
    // The stream was the one written to: the request log lines are there.
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((record) => record.level >= 50)).toEqual([]);
    expect(records.filter((record) => record.err?.stack)).toEqual([]);
    // Each line is the request's own: it carries the request as its access line names it.
    const clientErrors = records.filter((record) => record.msg === 'client error');
    expect(clientErrors.length).toBeGreaterThanOrEqual(5);
    const requestIds = new Set(records.filter((record) => record.msg === 'request completed').map((record) => record.req?.id));
    for (const record of clientErrors) {
      expect(record.req).toEqual({ id: expect.any(String), method: 'POST', route: '/graphql', path: '/graphql' });
      expect(requestIds.has(record.req!.id)).toBe(true);
    }
  });
});
