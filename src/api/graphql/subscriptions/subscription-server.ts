/**
 * GraphQL subscriptions over WebSocket (graphql-ws's `graphql-transport-ws` protocol) on the same
 * path as queries, /graphql (docs/events.md, "Subscriptions"). A subscribe passes what an HTTP
 * request passes, in the same order: a valid key (in the `connection_init` payload: a browser's
 * WebSocket has no headers to speak of), the budget not spent, the document's size, validation,
 * its price, then the charge of its statements. Open subscriptions are bounded per organization
 * (across instances with Redis) and per socket, a client message by `maxMessageBytes`.
 *
 * Close codes: 4403 when the key is missing, unknown or revoked (also while its sockets are open;
 * one code for all three: a client cannot do anything different about them), 4429 when the
 * client's address has spent its keyless attempts, 1013 when the database cannot check the key.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { CloseCode, handleProtocols, makeServer, type Context } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { presentKey, type ApiKeyPrincipal, type PresentedKey } from '../../../features/auth/api-keys';
import type { RequestContext } from '../../../features/context';
import type { StreamOptions } from '../../../features/events/event-stream';
import { EventWakeups } from '../../../features/events/event-wakeups';
import { databaseFailureOf } from '../../../platform/db/failures';
import { logger } from '../../../platform/logger';
import { AppError, rateLimited } from '../../../shared/errors';
import { authenticate, chargeRequest, chargeWork, createRequestContext, type ApiServices } from '../../request-context';
import { formatError } from '../format-error';
import { cachedOperationCost } from '../operation-cost';
import { refusal, REFUSED_CHARACTERS_PER_POINT } from '../plugins/operation-limits';
import { selectionShapeRule } from '../selection-shape-rule';
import { MAX_DOCUMENT_TOKENS } from '../server';
import { SubscriptionQuota } from './subscription-quota';
import { SharedLeases } from '../../../platform/rate-limit/shared-leases';
import type Redis from 'ioredis';

/** The close codes this server chooses (graphql-ws's own: 4400 bad message, 4406 subprotocol, 4408 no init in time...). */
export const CLOSE_FORBIDDEN = 4403;
export const CLOSE_TOO_MANY_ATTEMPTS = 4429;
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** connection_init waits this long at most: a socket that never authenticates does not stay. */
const CONNECTION_INIT_TIMEOUT_MS = 5_000;

export interface SubscriptionServerOptions {
  path: string;
  perOrganization: number;
  perSocket: number;
  maxMessageBytes: number;
  stream: StreamOptions;
  metrics?: { subscriptionsOpen: import('prom-client').Gauge; subscriptionEventPushed(lagSeconds: number | undefined): void };
  /**
   * The client's address of an upgrade request, as HTTP requests read it (TRUST_PROXY: behind a
   * proxy, from X-Forwarded-For): keyless attempts are counted by it. Default: the socket's peer.
   */
  clientAddressOf?: (request: IncomingMessage) => string;
  /** Redis shared by the instances: the per-organization bound then holds across them (closed with the server). */
  redis?: Redis;
}

export interface SubscriptionServer {
  /** For the HTTP server's `upgrade` event. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket (1001, going away): the HTTP server's close waits for them otherwise. */
  closeAll(): void;
}

interface SocketState {
  principal: ApiKeyPrincipal;
  /** the key it authenticated with: checked again when keys change (a revocation closes the socket) */
  presented: PresentedKey;
  /** open subscriptions of this socket, by id: their quota releases */
  open: Map<string, () => void>;
}

type SocketContext = Context<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage }>;

const tooMany = (message: string, extra: Record<string, unknown>) => new AppError('RATE_LIMITED', message, { extra });

const formatted = (errors: readonly GraphQLError[]) => errors.map((error) => formatError(error.toJSON(), error));

/**
 * When revocations are not heard (no listening connection: api-key-cache.ts), each open socket's
 * key is looked up again this often, so that a revoked key's socket closes within 5 s either way.
 */
export const KEY_RECHECK_MS = 4_000;

/** How long a subscription's lease lasts in Redis unless its instance renews it: an instance that dies frees its share within this. */
const SUBSCRIPTION_LEASE_MS = 30_000;

/** A peer that stops answering pings (a cut network sends no close) is dropped within two intervals. */
const KEEP_ALIVE_MS = 12_000;

function keepAlive(socket: WebSocket): { stop(): void } {
  let answered = true;
  socket.on('pong', () => {
    answered = true;
  });
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, KEEP_ALIVE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

export function createSubscriptionServer(
  schema: GraphQLSchema,
  services: ApiServices,
  options: SubscriptionServerOptions,
): SubscriptionServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes, handleProtocols });
  const leases = options.redis && new SharedLeases(options.redis, { prefix: 'vr-subscriptions', leaseMs: SUBSCRIPTION_LEASE_MS });
  const quota = new SubscriptionQuota(options.perOrganization, options.metrics?.subscriptionsOpen, leases);
  const wakeups = new EventWakeups(services.db);
  const rules = [...specifiedRules, selectionShapeRule];
  const sockets = new Map<WebSocket, SocketState>();
  const clientAddressOf = options.clientAddressOf ?? ((request: IncomingMessage) => request.socket.remoteAddress ?? '');

  /**
   * A key revoked while its sockets are open: they close with 4403, as a new connection with it
   * would. Checked again when a change to the key is heard (or any change, '*'), and every
   * KEY_RECHECK_MS while changes are not heard.
   */
  const recheckKeys = (digest: string) => {
    for (const [socket, state] of sockets) {
      if (digest !== '*' && state.presented.digest !== digest) continue;
      services.apiKeys.authenticate(state.presented).then(
        (principal) => {
          if (!principal && sockets.has(socket)) socket.close(CLOSE_FORBIDDEN, 'Forbidden: API key revoked');
        },
        // The database away: the key is checked again at the next change or recheck.
        (error: unknown) => logger.debug({ err: error }, 'subscription key recheck failed'),
      );
    }
  };
  const stopHearingKeys = services.apiKeys.onChange(recheckKeys);
  const recheckTimer = setInterval(() => {
    if (!services.apiKeys.hearsChanges && sockets.size > 0) recheckKeys('*');
  }, KEY_RECHECK_MS);
  recheckTimer.unref();

  /** The execution arguments of a subscribe, or why it is refused before anything runs (one refusal is thrown). */
  async function admit(
    ctx: SocketContext,
    id: string,
    payload: { query: string; variables?: Record<string, unknown> | null; operationName?: string | null },
  ): Promise<ExecutionArgs | GraphQLError[]> {
    const state = sockets.get(ctx.extra.socket)!;
    const principal = state.principal;
    const organizationId = principal.organizationId;
    const spent = services.rateLimits.requests.refusal(organizationId);
    if (spent) throw rateLimited(spent.retryAfterSeconds);
    const chargeRefused = () => chargeWork(services, { principal }, payload.query.length / REFUSED_CHARACTERS_PER_POINT);
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: MAX_DOCUMENT_TOKENS });
    } catch (error) {
      await chargeRefused();
      const { message, source, positions } = error as GraphQLError;
      throw new GraphQLError(message, { source, positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } });
    }
    const invalid = validate(schema, document, rules);
    if (invalid.length > 0) {
      await chargeRefused();
      return invalid.map(
        (error) =>
          new GraphQLError(error.message, { nodes: error.nodes, extensions: { ...error.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } }),
      );
    }
    const operation = getOperationAST(document, payload.operationName);
    if (!operation)
      throw new GraphQLError('Unable to identify the operation: name it in operationName', { extensions: { code: 'BAD_REQUEST' } });
    if (operation.operation !== 'subscription') {
      throw new GraphQLError(`Only subscriptions are served over WebSocket: send a ${operation.operation} to POST /graphql`, {
        nodes: [operation],
        extensions: { code: 'BAD_REQUEST' },
      });
    }
    const variables = payload.variables ?? {};
    const cost = cachedOperationCost(schema, document, operation, variables);
    const refused = cost && refusal(cost, false);
    if (refused) {
      await chargeRefused();
      throw refused;
    }
    const { perSocket, perOrganization } = options;
    if (state.open.size >= perSocket)
      throw tooMany(`Too many subscriptions on this socket: at most ${perSocket}`, { maximumSubscriptionsPerSocket: perSocket });
    const release = await quota.take(organizationId);
    if (!release) {
      throw tooMany(`Too many subscriptions: at most ${perOrganization} of one organization open at once`, {
        maximumSubscriptions: perOrganization,
      });
    }
    const decision = await chargeRequest(services, principal, cost?.statements ?? 1);
    if (!decision.allowed) {
      release();
      throw rateLimited(decision.retryAfterSeconds);
    }
    state.open.set(id, release);
    const contextValue: RequestContext = Object.assign(
      createRequestContext(services, {
        principal,
        log: logger.child({ subscription: id, organizationId }),
        clientAddress: clientAddressOf(ctx.extra.request),
      }),
      {
        feedFollowing: { wakeups, options: options.stream },
        // One context serves every push of the subscription: a budget would add up over its whole
        // life. Each push is one event, bounded by the validated selection.
        answerBudget: undefined,
      },
    );
    return { schema, document, variableValues: variables, operationName: payload.operationName, contextValue };
  }

  const release = (ctx: SocketContext, id: string) => {
    const open = sockets.get(ctx.extra.socket)?.open;
    open?.get(id)?.();
    open?.delete(id);
  };

  const graphqlWs = makeServer<Record<string, unknown> | undefined, { socket: WebSocket; request: IncomingMessage }>({
    connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
    onConnect: async (ctx) => {
      const socket = ctx.extra.socket;
      let auth;
      const key = ctx.connectionParams?.['x-api-key'] ?? ctx.connectionParams?.apiKey;
      const presented = presentKey(typeof key === 'string' ? key : undefined);
      try {
        auth = await authenticate(services, presented, clientAddressOf(ctx.extra.request));
      } catch (error) {
        if (!databaseFailureOf(error)) throw error;
        socket.close(CLOSE_TRY_AGAIN_LATER, 'Database unavailable: try again later');
        return false;
      }
      if (auth.status === 'authenticated' && presented) {
        // Closed already (the client left during the lookup): nothing to keep.
        if (socket.readyState !== socket.OPEN) return false;
        sockets.set(socket, { principal: auth.principal, presented, open: new Map() });
        return true;
      }
      if (auth.status === 'throttled') socket.close(CLOSE_TOO_MANY_ATTEMPTS, 'Too many attempts without a valid API key');
      else
        socket.close(
          CLOSE_FORBIDDEN,
          auth.status === 'missing' ? 'Forbidden: no API key in connection_init ({"x-api-key": ...})' : 'Forbidden: invalid API key',
        );
      return false;
    },
    onSubscribe: async (ctx, id, payload) => {
      try {
        return await admit(ctx, id, payload);
      } catch (error) {
        // A refusal as the GraphQLError graphql-ws sends; `onError` formats it like the HTTP answers.
        return [error instanceof GraphQLError ? error : new GraphQLError((error as Error).message, { originalError: error as Error })];
      }
    },
    onNext: (_ctx, _id, _payload, _args, result: ExecutionResult) => {
      const data = result.data as Record<string, { occurred_at?: unknown } | null> | null | undefined;
      for (const event of Object.values(data ?? {})) {
        const occurredAt = event?.occurred_at instanceof Date ? event.occurred_at.getTime() : Date.parse(String(event?.occurred_at));
        // The lag only when the client selected occurred_at.
        options.metrics?.subscriptionEventPushed(Number.isFinite(occurredAt) ? (Date.now() - occurredAt) / 1000 : undefined);
      }
      return result.errors && { ...result, errors: formatted(result.errors) };
    },
    onError: (_ctx, _id, _payload, errors) => formatted(errors),
    onComplete: (ctx, id) => release(ctx, id),
    onClose: (ctx) => {
      for (const id of [...(sockets.get(ctx.extra.socket)?.open.keys() ?? [])]) release(ctx, id);
      sockets.delete(ctx.extra.socket);
    },
  });

  // graphql-ws's own glue for ws (graphql-ws/use/ws) writes every socket error to the console, a
  // client's message above maxPayload included: any client could fill the logs. This one logs
  // client faults at debug, through the service's logger.
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    // ws closes the socket itself (1009 for a message above maxPayload, 1002 for a protocol error).
    socket.on('error', (error: Error & { code?: string }) => logger.debug({ err: error, code: error.code }, 'subscription socket error'));
    const alive = keepAlive(socket);
    const closed = graphqlWs.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data: Buffer) => {
            handle(String(data)).catch((error: unknown) => {
              logger.error({ err: error }, 'subscription message handling failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request },
    );
    socket.once('close', (code: number, reason: Buffer) => {
      alive.stop();
      void closed(code, String(reason));
    });
  });

  return {
    handleUpgrade(request, socket, head) {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      if (path !== options.path && path !== `${options.path}/`) {
        socket.end(
          'HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 21\r\nConnection: close\r\n\r\n{"detail":"Not Found"}',
        );
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
    },
    closeAll() {
      stopHearingKeys();
      clearInterval(recheckTimer);
      leases?.close();
      options.redis?.disconnect();
      for (const client of wss.clients) client.close(1001, 'Going away');
    },
  };
}
