/**
 * How answers are framed (platform/http/text-body.ts): a JSON answer carries a Content-Length
 * that counts its bytes, not its characters, never chunked, on both interfaces and for errors;
 * HTTP/1.0 gets it too, and HEAD the length of the body it would have had. Read off the wire
 * with several requests on one connection: a length off by one byte would garble the next answer.
 *
 * No database behaviour is involved: PGlite only.
 */
import net from 'node:net';
import { startTestServer, type TestServer } from '../support/server';

interface WireAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends the requests on one connection, reads until the server closes it, and splits the bytes by
 * each answer's Content-Length (an answer to HEAD has no body, whatever its length says).
 */
async function exchange(url: string, requests: string[]): Promise<WireAnswer[]> {
  const { hostname, port } = new URL(url);
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(requests.join('')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  const answers: WireAnswer[] = [];
  let at = 0;
  for (let index = 0; index < requests.length; index += 1) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) throw new Error(`answer ${index} is missing: ${JSON.stringify(bytes.subarray(at, at + 200).toString('latin1'))}`);
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = requests[index]!.startsWith('HEAD ') ? 0 : Number(headers['content-length']);
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: bytes.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  expect(at).toBe(bytes.length);
  return answers;
}

const NOT_ASCII = /[^\x00-\x7f]/;

describe('text answers on the wire', () => {
  let server: TestServer;
  let key: string;
  let token: string;
  let report: string;
  beforeAll(async () => {
    server = await startTestServer('pglite', { reports: 20 });
    key = server.keys[0]!;
    const page = (await (await fetch(`${server.url}/public/reports/?limit=20`, { headers: { 'x-api-key': key } })).json()) as {
      items: { token: string }[];
    };
    // A report whose answer holds characters beyond ASCII (the seed's French texts): its bytes outnumber its characters.
    for (const item of page.items) {
      const text = await (await fetch(`${server.url}/public/reports/${item.token}`, { headers: { 'x-api-key': key } })).text();
      if (NOT_ASCII.test(text)) [token, report] = [item.token, text];
    }
  });
  afterAll(() => server.close());

  const get = (path: string, version = '1.1', method = 'GET', connection = 'keep-alive') =>
    `${method} ${path} HTTP/${version}\r\nHost: x\r\nx-api-key: ${key}\r\nConnection: ${connection}\r\n\r\n`;
  const post = (query: string, connection = 'keep-alive') => {
    const body = Buffer.from(JSON.stringify({ query }), 'utf8');
    return `POST /graphql HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nConnection: ${connection}\r\n\r\n${body.toString('utf8')}`;
  };

  it('counts bytes in Content-Length, never chunks, and keeps the connection usable: REST, GraphQL and their errors', async () => {
    expect(report).toMatch(NOT_ASCII);
    const reportQuery = `{ report(report_id: "${token}") { token data { metadata { name } vehicle { specifications { brand model version } } } } }`;
    const answers = await exchange(server.url, [
      get(`/public/reports/${token}`),
      post(reportQuery),
      // Errors that echo what was sent, beyond ASCII: GraphQL's validation, REST's 422.
      post('{ report(report_id: "é’ü") { token } }'),
      get(`/public/reports/?created_at__gte=%C3%A9%E2%80%99`),
      get(`/public/reports/${token}`, '1.1', 'GET', 'close'),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 400, 422, 200]);
    for (const answer of answers) {
      expect(answer.headers).not.toHaveProperty('transfer-encoding');
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    }
    expect(answers[0]!.body.toString('utf8')).toBe(report);
    expect(answers[4]!.body.toString('utf8')).toBe(report);
    expect(JSON.parse(answers[1]!.body.toString('utf8'))).toMatchObject({ data: { report: { token } } });
    expect(answers[2]!.body.toString('utf8')).toContain('é’ü');
    expect(answers[3]!.body.toString('utf8')).toContain('é’');
  });

  it('tells HTTP/1.0 the length, and HEAD the length of the body it would have had', async () => {
    // An HTTP/1.0 client that keeps its connection open knows where a body ends only by its length.
    const old = await exchange(server.url, [
      get(`/public/reports/${token}`, '1.0'),
      get(`/public/reports/${token}`, '1.0', 'GET', 'close'),
    ]);
    for (const answer of old) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(report)));
      expect(answer.body.toString('utf8')).toBe(report);
    }

    // HEAD is refused as any other method a route does not serve: its length is that of PUT's answer.
    const answers = await exchange(server.url, [
      get(`/public/reports/${token}`, '1.1', 'HEAD'),
      get(`/public/reports/${token}`, '1.1', 'PUT', 'close'),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([405, 405]);
    expect(answers[1]!.body.length).toBeGreaterThan(0);
    expect(answers[0]!.headers['content-length']).toBe(String(answers[1]!.body.length));
    expect(answers[0]!.body.length).toBe(0);
  });
});
