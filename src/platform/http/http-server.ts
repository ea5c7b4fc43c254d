/**
 * The HTTP server around the express app, with the limits only the server can enforce: header
 * size and the time a client may take to send its request (slow clients must not hold sockets).
 * Node answers those itself, before express sees anything; the `clientError` handler here answers
 * them in the application's words (refusals.ts), like every other error (api-behaviour.md).
 */
import {
  createServer,
  IncomingMessage,
  ServerResponse,
  STATUS_CODES,
  type RequestListener,
  type Server,
  type ServerOptions,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AnswerRefusal, PlatformRefusal } from './refusals';

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

/**
 * How long an idle keep-alive connection is kept: longer than the idle time of the balancers and
 * clients in front of us (HAProxy's here, an ALB's 60 s, undici's 4 s), so that the client side
 * closes it first. When the server closes first, a request the client sends at that moment meets
 * a reset, and a POST is not re-sent. With Node's default of 5 s, a test's lead creation met
 * ECONNRESET on a busy machine, its client's keep-alive timer late (test/server/limits.test.ts
 * checks the connection is kept).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface HttpServerLimits {
  /** Time allowed to receive a whole request (headers and body). */
  requestTimeoutMs: number;
}

/** Which refusal Node's error while parsing a request is (lib/_http_server.js). */
function refusalFor(code: string | undefined): PlatformRefusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { kind: 'headers-too-large', maxBytes: MAX_HEADER_BYTES };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { kind: 'not-received-in-time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { kind: 'chunk-extensions-too-large' };
    default:
      return { kind: 'malformed' };
  }
}

const BARE_STATUS: Partial<Record<PlatformRefusal['kind'], number>> = {
  'headers-too-large': 431,
  'not-received-in-time': 408,
  'chunk-extensions-too-large': 413,
};

/** The in-flight response of a keep-alive socket (Node's own handler checks the same field). */
type SocketWithResponse = Socket & { _httpMessage?: { headersSent?: boolean } };

/** An application that words the refusals the server makes itself (app/create-app.ts sets it). */
export type ListenerWithRefusals = RequestListener & { locals?: { answerRefusal?: AnswerRefusal } };

function answerClientError(answerRefusal: AnswerRefusal | undefined, error: NodeJS.ErrnoException, socket: SocketWithResponse): void {
  // Writing now would corrupt a response already under way, or go to a peer that is gone.
  if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = refusalFor(error.code);
  // Without the application's wording (a bare listener), the status alone.
  const answer = answerRefusal?.(refusal) ?? { status: BARE_STATUS[refusal.kind] ?? 400, headers: {}, body: '' };
  const headers = Object.entries({ ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${headers}\r\n${answer.body}`);
}

/** An express app: the prototypes it gives every request and response it handles. */
type AppPrototypes = { request?: object; response?: object };

/**
 * Request and response classes whose objects are made with the app's prototypes (express's
 * `app.request`, `app.response`) rather than Node's. Express sets those prototypes on each request
 * it handles (`Object.setPrototypeOf`); measured, changing them on objects already made cost CPU
 * and made each request's objects survive the young generation's collections into the old one
 * (bench/HISTORY.md). Made with the app's prototypes, express's call finds them already set and
 * changes nothing.
 */
function requestClasses(app: AppPrototypes): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const { request, response } = app;
  if (!request || !response) return {};
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  AppResponse.prototype = response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}

export function createHttpServer(app: ListenerWithRefusals, limits: HttpServerLimits): Server {
  const server = createServer(
    {
      ...requestClasses(app as AppPrototypes),
      maxHeaderSize: MAX_HEADER_BYTES,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // How often Node checks the two timeouts above (default 30 s would stretch them).
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: SocketWithResponse) =>
    answerClientError(app.locals?.answerRefusal, error, socket),
  );
  const upgrade = (app as { locals?: Record<string, unknown> }).locals?.[UPGRADE_HANDLER] as UpgradeHandler | undefined;
  if (upgrade)
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => upgrade.handleUpgrade(request, socket, head));
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    // The upgraded sockets: the server's close would wait for them forever otherwise.
    upgrade?.closeAll();
    if (server.listening) sweepIdleConnectionsUntilClosed(server);
    return close(callback);
  }) as typeof server.close;
  return server;
}

/** How often a closing server closes the connections that went idle since (their answer sent). */
const CLOSING_SWEEP_MS = 250;

/**
 * Node's close() closes the connections idle at that moment; one whose request is under way goes
 * idle when its answer is sent, and would then be kept KEEP_ALIVE_TIMEOUT_MS before the server
 * closes (measured: close() waited 66 s for one answer under way; a shutdown would reach its
 * forced exit first). So they are closed as they go idle, and a request that still comes on one
 * is answered with `Connection: close`.
 */
function sweepIdleConnectionsUntilClosed(server: Server): void {
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (!response.headersSent) response.shouldKeepAlive = false;
  });
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), CLOSING_SWEEP_MS);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));
}

/**
 * Connections the system keeps waiting for the process to accept them. Past it, a burst of
 * connections (a busy event loop accepting late) overflows the queue: the system answers with SYN
 * cookies and drops handshakes, and some clients that had sent a whole request met a reset with no
 * answer (test/abuse/refusal-flood.test.ts, with Node's default of 511). Linux caps it at
 * net.core.somaxconn (4096 by default since 5.4).
 */
export const LISTEN_BACKLOG = 4096;

/**
 * Listens, and settles once it does: with the port listened on (PORT=0 lets the system choose), or
 * with the reason it cannot (EADDRINUSE: another process has the port), instead of the unhandled
 * 'error' event that would end the process with a stack trace.
 */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
