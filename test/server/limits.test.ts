/**
 * Request limits over real HTTP, each answered with JSON: headers over 16 KiB (431, from Node's
 * parser), a query string over 8 KiB (414), a body over 100 kB on GraphQL (413; REST's is in
 * errors.test.ts), a client too slow to send its request (408), and a request whose answer takes
 * longer than REQUEST_TIMEOUT_MS (503), whose SQL statement_timeout then stops in PostgreSQL too.
 *
 * PostgreSQL: the slow request is made real by a table locked from another connection, which
 * PGlite (one connection, in this process) cannot have. The other limits do not involve the database.
 */
import net from 'node:net';
import pg from 'pg';
import { createHttpServer } from '../../src/platform/http/http-server';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

const REQUEST_TIMEOUT_MS = 1_500;
const STATEMENT_TIMEOUT_MS = 4_000;
const APP_NAME = 'vr-app-limits';

/** Sends raw bytes and returns everything the server answers until it closes the connection. */
function rawExchange(url: string, request: string, giveUpMs = 10_000): Promise<{ response: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let response = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${giveUpMs} ms; got ${JSON.stringify(response)}`));
    }, giveUpMs);
    socket.on('data', (chunk) => (response += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ response, closedAfterMs: Date.now() - started });
    });
    socket.write(request);
  });
}

function parseRaw(response: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined };
}

/**
 * Sends a chunked body of up to `totalBytes` in 64 kB chunks, as fast as the connection takes them,
 * and stops sending once the server answers. Returns the answer's status line and body, and how many
 * body bytes had been sent when it came.
 */
function sendChunkedUntilAnswered(
  url: string,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
): Promise<{ status: number; body: string; sentBeforeAnswer: number }> {
  const { hostname, port } = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const head =
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let response = '';
    let sent = 0;
    let sentBeforeAnswer: number | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and close within 30 s; sent ${sent} bytes, got ${JSON.stringify(response.slice(0, 200))}`));
    }, 30_000);
    const finish = () => {
      clearTimeout(timer);
      const statusLine = response.slice(0, response.indexOf('\r\n'));
      const body = response.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), body, sentBeforeAnswer: sentBeforeAnswer ?? sent });
    };
    socket.on('data', (data) => {
      sentBeforeAnswer ??= sent;
      response += data.toString('utf8');
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(head);
    const write = () => {
      while (sentBeforeAnswer === undefined && sent < totalBytes && !socket.destroyed) {
        sent += chunk.length;
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        if (!socket.write('\r\n')) {
          socket.once('drain', write);
          return;
        }
      }
      if (socket.destroyed) return;
      if (sentBeforeAnswer === undefined) socket.end('0\r\n\r\n');
      else socket.end();
    };
    write();
  });
}

describe('request limits', () => {
  let server: TestServer;
  let admin: pg.Client;

  beforeAll(async () => {
    server = await startTestServer('postgres', {
      reports: 10,
      config: { requestTimeoutMs: REQUEST_TIMEOUT_MS, pgStatementTimeoutMs: STATEMENT_TIMEOUT_MS },
      // The app's own pool, with the statement timeout of its config (the seeding one has none).
      appDatabaseUrl: (url) => {
        const named = new URL(url);
        named.searchParams.set('application_name', APP_NAME);
        return named.toString();
      },
    });
    admin = new pg.Client({ connectionString: server.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.close();
  });

  const key = () => ({ 'x-api-key': server.keys[0]! });

  it('answers 431 JSON to headers over 16 KiB, and serves 15 KiB of headers', async () => {
    const tooLarge = await fetch(`${server.url}/public/dealerships/`, { headers: { ...key(), 'x-padding': 'a'.repeat(17 * 1024) } });
    expect(tooLarge.status).toBe(431);
    expect(tooLarge.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await tooLarge.json()).toEqual({ detail: expect.stringMatching(/headers too large/i) });

    const fits = await fetch(`${server.url}/public/dealerships/`, { headers: { ...key(), 'x-padding': 'a'.repeat(15 * 1024) } });
    expect(fits.status).toBe(200);
  });

  it('answers 414 JSON to a query string over 8 KiB, on every route, before authentication', async () => {
    const long = `search=${'a'.repeat(8 * 1024)}`;
    for (const path of ['/public/reports/', '/graphql', '/healthz']) {
      const response = await fetch(`${server.url}${path}?${long}`);
      expect([path, response.status]).toEqual([path, 414]);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(await response.json()).toEqual({ detail: expect.stringMatching(/query string too long/i) });
    }
    // Just under the limit, the request goes through (to its own validation: an unknown key here).
    const fits = await fetch(`${server.url}/public/reports/?search=${'a'.repeat(8 * 1024 - 'search='.length)}`, { headers: key() });
    expect(fits.status).not.toBe(414);
  });

  it('answers 413 JSON to a GraphQL body over 100 kB', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...key(), 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ dealerships { total } } # ${'x'.repeat(110_000)}` }),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.stringify(await response.json())).toMatch(/too large/i);
  });

  it('answers a chunked body past its limit as soon as it passes it, without reading the rest: GraphQL, REST, keyless', async () => {
    // 64 MB offered; body-parser alone would read all of it before answering its 413.
    const total = 64 * 1024 * 1024;
    const cases = [
      { path: '/graphql', headers: key(), status: 413, detail: /too large/i },
      { path: '/public/reports/create-lead', headers: key(), status: 413, detail: /Request body too large/ },
      // No key: the refusal of the missing key, once the body is too large to be an introspection query.
      { path: '/graphql', headers: {}, status: 401, detail: /Not authenticated/ },
    ];
    for (const { path, headers, status, detail } of cases) {
      const answer = await sendChunkedUntilAnswered(server.url, path, headers, total);
      expect([path, answer.status]).toEqual([path, status]);
      expect(answer.body).toMatch(detail);
      // What the socket buffers hold between client and server, not the 64 MB.
      expect([path, answer.sentBeforeAnswer < 16 * 1024 * 1024]).toEqual([path, true]);
    }
  }, 60_000);

  it('answers 408 JSON and closes the connection when a client does not finish sending its request in time', async () => {
    // Headers never finished (slowloris: Node's own timeout), then a body that never comes (the
    // request deadline, which sees the request incomplete). One answer each, then the connection closes.
    for (const request of [
      'GET /public/dealerships/ HTTP/1.1\r\nHost: x\r\n',
      'POST /public/reports/create-lead HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"na',
    ]) {
      const { response, closedAfterMs } = await rawExchange(server.url, request);
      const parsed = parseRaw(response);
      expect(parsed.status).toBe(408);
      expect(parsed.headers).toContain('content-type: application/json');
      expect(parsed.body).toEqual({ detail: 'Request not received in time' });
      // Node checks its timeouts every second (and this machine may be busy).
      expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 4_000);
    }
  });

  it('keeps an idle keep-alive connection past Node’s default 5 s and the request deadline: the client closes it first', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    const answers: string[] = [];
    let closed = false;
    socket.on('data', (chunk) => answers.push(chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    try {
      const request = `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`;
      socket.write(request);
      await waitFor(() => answers.join('').includes('\r\n\r\n'), 5_000);
      expect(answers.join('').toLowerCase()).toContain('keep-alive: timeout=65');
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      expect(closed).toBe(false);
      socket.write(request);
      await waitFor(() => answers.join('').split('HTTP/1.1 200').length === 3, 5_000);
    } finally {
      socket.destroy();
    }
  }, 20_000);

  it('closes, once its answers under way are sent, without waiting out the keep-alive of their connections', async () => {
    let requests = 0;
    const slow = createHttpServer(
      (_req, res) => {
        requests += 1;
        setTimeout(() => res.end('ok'), 500);
      },
      { requestTimeoutMs: 10_000 },
    );
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const connect = () => {
      const socket = net.connect((slow.address() as net.AddressInfo).port, '127.0.0.1');
      const connection = { socket, received: '', closed: new Promise<void>((resolve) => socket.on('close', () => resolve())) };
      socket.on('data', (chunk) => (connection.received += chunk.toString('utf8')));
      socket.on('error', () => undefined);
      return connection;
    };
    const answersOf = (received: string) =>
      received
        .split('HTTP/1.1 ')
        .slice(1)
        .map((answer) => answer.toLowerCase());
    // One connection with a request under way when the server closes; another that sends one more after.
    const [quiet, busy] = [connect(), connect()];
    try {
      const request = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
      quiet.socket.write(request);
      busy.socket.write(request);
      // Both under way (a connection that has sent nothing yet is idle, and close() would end it).
      await waitFor(() => requests === 2, 5_000, 10);
      const started = Date.now();
      const closed = new Promise<number>((resolve) => slow.close(() => resolve(Date.now() - started)));
      busy.socket.write(request);
      // Not after the connections' 65 s of keep-alive.
      expect(await closed).toBeLessThan(5_000);
      await Promise.all([quiet.closed, busy.closed]);
      // The answers begun before close() were told they may keep their connection; the one after, not.
      expect(answersOf(quiet.received).map((answer) => [answer.slice(0, 3), /connection: (\S+)/.exec(answer)?.[1]])).toEqual([
        ['200', 'keep-alive'],
      ]);
      expect(answersOf(busy.received).map((answer) => [answer.slice(0, 3), /connection: (\S+)/.exec(answer)?.[1]])).toEqual([
        ['200', 'keep-alive'],
        ['200', 'close'],
      ]);
    } finally {
      for (const { socket } of [quiet, busy]) socket.destroy();
      slow.closeAllConnections();
    }
  });

  it('answers 503 JSON at the request deadline, REST and GraphQL alike; the SQL then stops at its statement_timeout', async () => {
    const waiting = async () =>
      (await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [APP_NAME]))
        .rowCount ?? 0;
    const locker = new pg.Client({ connectionString: server.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE dealerships IN ACCESS EXCLUSIVE MODE');
    try {
      const started = Date.now();
      const [rest, graphql] = await Promise.all([
        fetch(`${server.url}/public/dealerships/`, { headers: key() }),
        fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { ...key(), 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ dealerships { total } }' }),
        }),
      ]);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(STATEMENT_TIMEOUT_MS);
      for (const response of [rest, graphql]) {
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.headers.get('retry-after')).toBe('5');
        expect(await response.json()).toEqual({ detail: expect.stringMatching(/took too long/i) });
      }
      // Still locked, yet nothing waits any more: PostgreSQL cancelled the statements.
      expect(await waiting()).toBeGreaterThan(0);
      await waitFor(async () => (await waiting()) === 0, STATEMENT_TIMEOUT_MS + 2_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    // The late failures of the abandoned requests went nowhere, and the service carries on.
    const after = await fetch(`${server.url}/public/dealerships/`, { headers: key() });
    expect(after.status).toBe(200);
  });
});
