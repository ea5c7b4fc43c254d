/**
 * Bodies a refused request never has parsed. A refusal decided before the body (a wrong or missing
 * key, a spent budget, a declared length over the limit) is answered at once, and the rest of the
 * body is only drained while the connection closes: body-parser, on its own 413, reads the whole
 * body off the wire before it answers (its `dump`), however long it is, so a declared length over
 * the limit is refused here before it is called, and a body that declares none (chunked) is
 * counted as it arrives (`withWireLimit`).
 */

import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';

/** Whether the request declares a body longer than `limit` bytes (Content-Length). */
export function declaresBodyOver(req: { headers: { 'content-length'?: string } }, limit: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > limit;
}

/**
 * How long a refused connection's client may stay silent while its connection lingers: past it,
 * the client is taken to have sent all it will. Checked at this interval, so a silent connection
 * closes between one and two of it after its last bytes.
 */
export const LINGER_IDLE_MS = 2_000;

/**
 * How long a refused connection lingers, however its client keeps sending: as long as a request
 * may take to arrive (REQUEST_TIMEOUT_MS's default), nginx's lingering_time. Checked with the
 * silence, so it closes at most LINGER_IDLE_MS past it.
 */
export const LINGER_MAX_MS = 30_000;

/**
 * For a refusal answered before the request's body was parsed: the connection closes after the
 * answer, instead of being kept for the client's next request (KEEP_ALIVE_TIMEOUT_MS): a flood of
 * refused bodies leaves no descriptor behind. Whether the body is still on the wire or already in
 * the socket's buffers depends on the runtime (Node 22 buffers more than Node 20 before the key is
 * checked), so any request that carries a body closes; one without (a GET) keeps its connection.
 *
 * The close lingers, as nginx's lingering_close does: the answer is followed by a FIN, and what the
 * client still sends is read and thrown away until it closes its side, stays silent for
 * LINGER_IDLE_MS, or LINGER_MAX_MS have passed. Closed with data unread, or while its client is
 * still sending, the connection is reset by the kernel, and a client that reads its answer only
 * once it has sent its body (Python's http.client) loses it. A fixed short linger lost it for a
 * client sending slowly, or for a flood's clients on a busy machine.
 */
export function closeIfBodyUnread(
  req: { headers: IncomingHttpHeaders; socket: Socket },
  res: { setHeader(name: string, value: string): unknown },
): void {
  const declared = Number(req.headers['content-length']);
  if (!(declared > 0) && req.headers['transfer-encoding'] === undefined) return;
  res.setHeader('connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // Node ends a `Connection: close` response with destroySoon(): the socket destroyed once the
  // answer is written, unread data or not.
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    const lingerEnds = performance.now() + LINGER_MAX_MS;
    // The HTTP parser reads the socket natively (no 'data' events): what arrived shows in bytesRead.
    let bytesRead = socket.bytesRead;
    const idle = setTimeout(function closeIfSilent() {
      if (socket.bytesRead === bytesRead || performance.now() >= lingerEnds) return socket.destroy();
      bytesRead = socket.bytesRead;
      idle.refresh();
    }, LINGER_IDLE_MS);
    idle.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(idle));
  };
}

/** body-parser's own error for a body over its limit, as the callers already recognize it. */
export function bodyTooLarge(limit: number): Error {
  return Object.assign(new Error('request entity too large'), {
    status: 413,
    statusCode: 413,
    expose: true,
    type: 'entity.too.large',
    limit,
  });
}

/** Whether a body reader's error is that 413 (body-parser's, or `bodyTooLarge`). */
export function isBodyTooLarge(error: unknown): error is Error {
  return (error as { status?: unknown } | undefined)?.status === 413;
}

/**
 * `read` (a body-parser reader) with its limit kept on the wire as well. A chunked body declares no
 * length to be refused by beforehand, and body-parser, once it passes the limit, reads the rest of
 * it whatever its length before it calls back. Such a body is counted as it arrives instead, and
 * the moment it passes `limit` bytes, `next` gets body-parser's 413 at once (its caller answers
 * and closes the connection: closeIfBodyUnread); the reader's own late callback is then dropped.
 */
export function withWireLimit(read: RequestHandler, limit: number): RequestHandler {
  return (req, res, next) => {
    if (req.headers['transfer-encoding'] === undefined) return read(req, res, next);
    let received = 0;
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', count);
      next(error);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) settle(bodyTooLarge(limit));
    };
    // Before the reader's own listener: this one sees each chunk first.
    req.on('data', count);
    void read(req, res, settle);
  };
}
