/**
 * The HTTP server around the express app, with the limits only the server can enforce: header
 * size and the time a client may take to send its request (slow clients must not hold sockets).
 * Node answers those itself, before express sees anything; the `clientError` handler here makes
 * those answers JSON like every other response (api-behaviour.md).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';

/**
 * What serves the HTTP upgrades (WebSockets) of an app: an express app carries it in
 * `app.locals[UPGRADE_HANDLER]` (create-app.ts), so every server made here for it serves them.
 */
export const UPGRADE_HANDLER = 'upgradeHandler';

export interface UpgradeHandler {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes the upgraded sockets: the server's close would wait for them forever otherwise. */
  closeAll(): void;
}

/** Request line plus headers; beyond it Node answers 431 (its own default is the same 16 KiB). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The headers must arrive within this (and within the request timeout, whichever is shorter). */
export const HEADERS_TIMEOUT_MS = 10_000;

export interface HttpServerLimits {
  /** Time allowed to receive a whole request (headers and body). */
  requestTimeoutMs: number;
}

/** Node's statuses for errors raised while parsing a request (lib/_http_server.js). */
function statusFor(code: string | undefined): { status: number; reason: string; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        detail: `Request headers too large (more than ${MAX_HEADER_BYTES} bytes)`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', detail: 'Request not received in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', detail: 'Chunk extensions too large' };
    default:
      return { status: 400, reason: 'Bad Request', detail: 'Malformed HTTP request' };
  }
}

/** The in-flight response of a keep-alive socket (Node's own handler checks the same field). */
type SocketWithResponse = Socket & { _httpMessage?: { headersSent?: boolean } };

function answerClientError(error: NodeJS.ErrnoException, socket: SocketWithResponse): void {
  // Writing now would corrupt a response already under way, or go to a peer that is gone.
  if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, reason, detail } = statusFor(error.code);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function createHttpServer(app: RequestListener, limits: HttpServerLimits): Server {
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
      // How often Node checks the two timeouts above (default 30 s would stretch them).
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  server.on('clientError', answerClientError);
  const upgrade = (app as { locals?: Record<string, unknown> }).locals?.[UPGRADE_HANDLER] as UpgradeHandler | undefined;
  if (upgrade) {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => upgrade.handleUpgrade(request, socket, head));
    const close = server.close.bind(server);
    server.close = ((callback?: (error?: Error) => void) => {
      upgrade.closeAll();
      return close(callback);
    }) as typeof server.close;
  }
  return server;
}
