/**
 * The one error type of the service. Features throw it; each interface maps it onto its own wire
 * format (GraphQL `extensions.code` in api/graphql/format-error.ts, FastAPI bodies in
 * api/rest/rest-errors.ts). It knows no transport: a code from a closed list, the HTTP-like status
 * that code means, and structured details.
 */
import { answeredDatabaseFailure, DATABASE_RETRY_AFTER_SECONDS, databaseFailureOf } from '../platform/db/failures';
import type { Logger } from '../platform/logger';

/** Every code a client can meet, whichever interface it uses, and the status it means. */
const STATUS_OF_CODE = {
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 422,
  BAD_REQUEST: 400,
  QUOTA_EXHAUSTED: 403,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
  // HTTP-level refusals: a request the interface could not take as sent, whatever it asked.
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  // A bug: its details stay in the log, the client gets the bare status.
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof STATUS_OF_CODE;

export type LocSegment = string | number;

/**
 * One failing input, in the shape the product promises on both interfaces (Pydantic v2's error
 * item): `loc` is relative to the operation's arguments (`['order_by']`, `['body', 'email']` once
 * REST has placed it).
 */
export interface InputErrorItem {
  type: string;
  loc: LocSegment[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export interface ErrorDetails {
  /** BAD_USER_INPUT: every failing input, in declaration order. */
  inputErrors?: InputErrorItem[];
  /** RATE_LIMITED, SERVICE_UNAVAILABLE: when to try again. */
  retryAfterSeconds?: number;
  /** UNAUTHENTICATED: no credential at all (as opposed to a wrong one), which HTTP answers with a challenge. */
  credentialsMissing?: boolean;
  /** UNAUTHENTICATED: the challenge, when the credential is not the API key (WWW-Authenticate). */
  challenge?: string;
  /** METHOD_NOT_ALLOWED: the methods the path does serve. */
  allow?: string;
  /** The connection is closed after the answer (part of a request may still be on its way). */
  closeConnection?: boolean;
  /** Anything else a client may use (e.g. QUERY_TOO_COMPLEX's cost and maximum). */
  extra?: Record<string, unknown>;
}

export class AppError extends Error {
  override readonly name = 'AppError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    // A client's error carries no stack: nobody reads it (client errors are logged without one),
    // and graphql-js's GraphQLError formats the stack of every error it wraps. A missing report
    // selected 20 times is 20 errors; wrapping them took about as much CPU as the rest of Apollo's
    // pipeline (bench:abuse scenario 10, mostly formatting). A bug (INTERNAL) keeps its stack.
    const stackTraceLimit = Error.stackTraceLimit;
    if (code !== 'INTERNAL') Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
  }

  get status(): number {
    return STATUS_OF_CODE[this.code];
  }
}

export const notAuthenticated = () => new AppError('UNAUTHENTICATED', 'Not authenticated', { credentialsMissing: true });
/** A credential other than the API key is required (the operator's METRICS_TOKEN): `challenge` says which. */
export const credentialRequired = (challenge: string) =>
  new AppError('UNAUTHENTICATED', 'Not authenticated', { credentialsMissing: true, challenge });
export const invalidApiKey = () => new AppError('UNAUTHENTICATED', 'Invalid API key');
export const notFound = (message: string) => new AppError('NOT_FOUND', message);
export const quotaExhausted = () => new AppError('QUOTA_EXHAUSTED', 'Subscription quota exhausted');
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const rateLimited = (retryAfterSeconds: number) => new AppError('RATE_LIMITED', 'Rate limit exceeded', { retryAfterSeconds });
/** One organization already has its share of this instance in progress (ORG_CONCURRENT_REQUESTS). */
export const tooManyConcurrentRequests = (maximum: number, retryAfterSeconds: number) =>
  new AppError('RATE_LIMITED', `Too many concurrent requests: at most ${maximum} of one organization at once`, {
    retryAfterSeconds,
    extra: { maximumConcurrentRequests: maximum },
  });
export const serviceUnavailable = (message: string, retryAfterSeconds: number) =>
  new AppError('SERVICE_UNAVAILABLE', message, { retryAfterSeconds });
export const badRequest = (message: string) => new AppError('BAD_REQUEST', message);
export const methodNotAllowed = (allow: string) => new AppError('METHOD_NOT_ALLOWED', 'Method Not Allowed', { allow });
export const payloadTooLarge = (message: string, closeConnection = false) =>
  new AppError('PAYLOAD_TOO_LARGE', message, { closeConnection });
export const unsupportedMediaType = (message: string) => new AppError('UNSUPPORTED_MEDIA_TYPE', message);
export const uriTooLong = (message: string) => new AppError('URI_TOO_LONG', message);
export const headersTooLarge = (message: string) => new AppError('HEADERS_TOO_LARGE', message, { closeConnection: true });
export const requestTimeout = (message: string) => new AppError('REQUEST_TIMEOUT', message, { closeConnection: true });
/**
 * The answer's deadline passed (REQUEST_TIMEOUT_MS). Mostly the database stalled (a failover, a
 * lock): the client is told when to come back as for the database's other 503s, so that every
 * 503 carries Retry-After (a balancer or client that honours it does not retry at once).
 */
export const deadlinePassed = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The request took too long, retry later', {
    closeConnection: true,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
export const internalError = () => new AppError('INTERNAL', 'Internal Server Error');

/**
 * Any failure as the service's error: an AppError as it is (also when graphql-js wrapped it), the
 * database away as SERVICE_UNAVAILABLE (its cause logged once, as a warning), anything else
 * undefined: a bug, which each interface masks.
 */
export function asAppError(error: unknown, log?: Logger): AppError | undefined {
  if (error instanceof AppError) return error;
  const original = (error as { originalError?: unknown } | null)?.originalError;
  if (original instanceof AppError) return original;
  const failure = log ? answeredDatabaseFailure(error, log) : databaseFailureOf(error);
  return failure ? serviceUnavailable(failure.message, DATABASE_RETRY_AFTER_SECONDS) : undefined;
}

/** Bad input: every failing item at once. The message lists them for clients that read only messages. */
export function invalidInput(items: InputErrorItem[]): AppError {
  const message = items.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
  return new AppError('BAD_USER_INPUT', message, { inputErrors: items });
}

/** One input refused by a rule of the product, as pydantic reports a validator's `ValueError`. */
export function invalidValue(loc: LocSegment, input: unknown, message: string, error: unknown = {}): AppError {
  return invalidInput([{ type: 'value_error', loc: [loc], msg: `Value error, ${message}`, input, ctx: { error } }]);
}
