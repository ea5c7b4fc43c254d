/**
 * A bare HTTP/1.1 client over node:http for hostile requests. `fetch` (undici) normalizes or
 * refuses what a fuzzer wants to send: it re-encodes paths, rejects broken percent-encoding in
 * URLs and merges duplicate headers. Here the path goes on the wire exactly as given (it must be
 * pre-encoded: printable ASCII only, which is all node's client allows), headers may repeat
 * (an array value is sent as several lines), and the body is sent as raw bytes.
 */
import http from 'node:http';
import net from 'node:net';

export interface RawRequest {
  method: string;
  /** path and query string, already percent-encoded (or deliberately mis-encoded) */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export function sendRaw(baseUrl: string, request: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const headers: Record<string, string | string[]> = { ...request.headers };
  // Sent as given rather than chunked, so body-size limits see a content-length like a real client's.
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method: request.method, path: request.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** `%XX` for every byte outside RFC 3986's unreserved set; lone surrogates become U+FFFD (UTF-8). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * A request written byte for byte on a TCP socket, for what node's client refuses to send: raw
 * spaces, control characters and non-ASCII bytes in the request line or headers, bare LF line
 * ends. The socket stays open for writing (a half-close would end the exchange early); the first
 * complete answer is returned, or what came before the server closed.
 */
export function sendSocket(baseUrl: string, request: Buffer, timeoutMs = 30_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (outcome: () => RawResponse) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(request));
    socket.setTimeout(timeoutMs, () =>
      settle(() => {
        throw new Error(`no answer within ${timeoutMs} ms`);
      }),
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (isComplete(received)) settle(() => parseResponse(received));
    });
    socket.on('error', (error) =>
      settle(() => {
        throw error;
      }),
    );
    socket.on('close', () => settle(() => parseResponse(received)));
  });
}

/** Headers and a body as long as content-length says (or the last chunk) have arrived. */
function isComplete(bytes: Buffer): boolean {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = bytes.subarray(0, end).toString('latin1');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return bytes.length - end - 4 >= Number(length);
  return /\r\ntransfer-encoding:\s*chunked/i.test(head) && bytes.subarray(end).includes('\r\n0\r\n\r\n');
}

/** One HTTP/1.1 response: status line, headers, and a body by content-length or chunks. */
function parseResponse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no HTTP response: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
  const headers: http.IncomingHttpHeaders = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status, headers, text: body.toString('utf8') };
}
