/**
 * The one place that decides whether an error means "the database is not there right now" (or
 * "it took too long"), whichever layer it reached us through (`pg`, Prisma's driver adapter, Prisma
 * itself), so that REST, GraphQL and the error handler answer an outage alike: 503 with
 * Retry-After, instead of a 500 or a request that hangs.
 *
 * Measured on this stack (PostgreSQL reached through a TCP proxy that resets or refuses):
 * - refused connection: Prisma P1001 / P2010 whose `meta.driverAdapterError.cause.kind` is
 *   `DatabaseNotReachable`;
 * - connection reset mid-query: P2010 with kind `ConnectionClosed`; inside an interactive
 *   transaction (seen when PgBouncer restarts), the adapter's own `DriverAdapterError`, its
 *   payload (`kind: 'ConnectionClosed'`) as its `cause`;
 * - backend terminated (restart, pg_terminate_backend): P2010 with kind `postgres`, code 57P01;
 * - connection closed without a reset, or connect timeout: a plain `Error("Connection terminated
 *   ...")` from `pg`, passed through unchanged;
 * - pool exhausted: `Error("timeout exceeded when trying to connect")` from pg-pool, or Prisma
 *   P2028 "Unable to start a transaction in the given time";
 * - an interactive transaction that outlived Prisma's timeout (a statement stalled behind a
 *   failover, PgBouncer's queue): P2028 "A query cannot be executed on an expired transaction",
 *   or "... on a transaction that was rolled back" for the next statement. Prisma rolled it back,
 *   so nothing was written: a 503 to retry, like the stall's other answers, not a bug's 500.
 */

import type { Logger } from '../logger';

export interface DatabaseFailure {
  kind: 'unavailable' | 'timeout';
  /** What the client is told (REST `detail`, GraphQL `message`): no host, no SQL. */
  message: string;
}

/** Seconds a client is asked to wait before retrying (a PostgreSQL restart takes a few). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

const UNAVAILABLE: DatabaseFailure = { kind: 'unavailable', message: 'Service temporarily unavailable, retry later' };
const TIMEOUT: DatabaseFailure = { kind: 'timeout', message: 'The database took too long to answer, retry later' };

/**
 * Prisma codes: can't reach (P1001), timed out reaching (P1002), socket timeout (P1008), closed
 * (P1017), too many connections (P2037), pool timeout (P2024).
 */
const PRISMA_UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2037']);

/** Node socket errors on the way to the server. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Prisma driver adapter error kinds (`@prisma/driver-adapter-utils`). */
const ADAPTER_UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/**
 * PgBouncer reports its own trouble reaching the server as 08P01 too (measured during a Patroni
 * failover: its server connection cut under a transaction, then no server to log in to while no
 * node is the primary). These messages are PgBouncer's (src/client.c, src/server.c, src/janitor.c).
 */
const PGBOUNCER_UNAVAILABLE_MESSAGES =
  /^(server conn crashed\?|server login has been failing|query_wait_timeout|pgbouncer cannot connect to server|no more connections allowed|server_connect_timeout|database .* (?:not available|removed)|pooler is shutting down|server shutting down|client_login_timeout)/i;

/**
 * SQLSTATE: class 08 (connection exception), 57P01 admin shutdown, 57P02 crash shutdown,
 * 57P03 cannot connect now (starting up, in recovery), 53300 too many connections, and 25006
 * read_only_sql_transaction: a write reached a node that is no longer the primary (demoted by
 * Patroni, the connection opened before the switch); a new connection finds the new primary.
 */
function sqlStateFailure(code: unknown, message: unknown): DatabaseFailure | undefined {
  if (typeof code !== 'string') return undefined;
  // 08P01 (protocol violation) is the driver's own mistake, e.g. more bind parameters than the
  // protocol counts: a bug to fix, not an outage to wait out; unless PgBouncer says it cannot
  // reach the server.
  if (code === '08P01') return typeof message === 'string' && PGBOUNCER_UNAVAILABLE_MESSAGES.test(message) ? UNAVAILABLE : undefined;
  if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '53300', '25006'].includes(code)) return UNAVAILABLE;
  // 57014: query_canceled, which is what statement_timeout raises.
  if (code === '57014') return TIMEOUT;
  return undefined;
}

/** Messages of errors that carry no code: pg's closed connection, pg-pool's and Prisma's waits. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error and is not queryable/i,
  /Unable to start a transaction in the given time/i,
  /Can't reach database server/i,
];

interface ErrorLike {
  /** a driver adapter error's payload (`DriverAdapterError.cause`) */
  kind?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: ErrorLike } };
}

function classifyOne(error: ErrorLike): DatabaseFailure | undefined {
  const code = typeof error.code === 'string' ? error.code : undefined;
  if (code && (PRISMA_UNAVAILABLE_CODES.has(code) || SOCKET_CODES.has(code))) return UNAVAILABLE;
  // The adapter's payload: inside Prisma's error, or reached as a DriverAdapterError's `cause`.
  const adapterCause = error.meta?.driverAdapterError?.cause ?? (typeof error.kind === 'string' ? error : undefined);
  if (typeof adapterCause?.kind === 'string' && ADAPTER_UNAVAILABLE_KINDS.has(adapterCause.kind)) return UNAVAILABLE;
  const failure =
    (adapterCause &&
      sqlStateFailure(adapterCause.originalCode ?? adapterCause.code, adapterCause.originalMessage ?? adapterCause.message)) ??
    // A raw pg DatabaseError: a SQLSTATE in `code`.
    sqlStateFailure(code, error.message);
  if (failure) return failure;
  if (code === 'P2028' && typeof error.message === 'string') {
    if (/Unable to start a transaction/i.test(error.message)) return UNAVAILABLE;
    // Our transactions end rolled back only through their timeout (a callback's own error is thrown as it is).
    if (/expired transaction|transaction that was rolled back/i.test(error.message)) return TIMEOUT;
  }
  if (!code && typeof error.message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message as string))) {
    return UNAVAILABLE;
  }
  return undefined;
}

/**
 * The database failure behind `error`, if that is what it is; undefined for anything else (a bug,
 * a constraint violation...). Follows `originalError` (GraphQL wraps resolver errors) and `cause`.
 */
export function databaseFailureOf(error: unknown): DatabaseFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth += 1) {
    const candidate = current as ErrorLike;
    const failure = classifyOne(candidate);
    if (failure) return failure;
    current = candidate.originalError ?? candidate.cause;
  }
  return undefined;
}

/**
 * `databaseFailureOf`, for the places that answer it with a 503: the cause goes to the log once,
 * as a warning (an outage is an operational event, not a bug), through the request's logger.
 */
export function answeredDatabaseFailure(error: unknown, log: Logger): DatabaseFailure | undefined {
  const failure = databaseFailureOf(error);
  if (failure) log.warn({ err: error, failure: failure.kind }, 'database failure: answered 503');
  return failure;
}
