/**
 * The one error type of the service. Features throw it; each interface maps it onto its own wire
 * format (GraphQL `extensions.code` in api/graphql/format-error.ts, FastAPI bodies in
 * api/rest/rest-errors.ts). It knows no transport: a code from a closed list, the HTTP-like status
 * that code means, and structured details.
 */

/** Every code a client can meet, whichever interface it uses. */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'BAD_REQUEST'
  | 'QUOTA_EXHAUSTED'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'QUERY_TOO_COMPLEX'
  | 'SERVICE_UNAVAILABLE';

export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 422,
  BAD_REQUEST: 400,
  QUOTA_EXHAUSTED: 403,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
};

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
    super(message);
  }

  get status(): number {
    return STATUS_OF_CODE[this.code];
  }
}

export const notAuthenticated = () => new AppError('UNAUTHENTICATED', 'Not authenticated', { credentialsMissing: true });
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

/** Bad input: every failing item at once. The message lists them for clients that read only messages. */
export function invalidInput(items: InputErrorItem[]): AppError {
  const message = items.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
  return new AppError('BAD_USER_INPUT', message, { inputErrors: items });
}
