/**
 * What a GraphQL client sees of an error: the service's own errors (shared/errors.ts) with their
 * code and details in `extensions`; graphql-js's and Apollo's request errors with theirs; the
 * database being away as SERVICE_UNAVAILABLE; anything else masked as INTERNAL_SERVER_ERROR (its
 * details are logged with the request id by the log-errors plugin).
 */
import type { Response } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, asAppError, type ErrorCode, type InputErrorItem } from '../../shared/errors';

declare module 'graphql' {
  interface GraphQLErrorExtensions {
    code?: ErrorCode | ApolloErrorCode | 'INTERNAL_SERVER_ERROR';
    /** BAD_USER_INPUT: the first failing argument, and every failure in Pydantic's item shape */
    argumentName?: string;
    detail?: InputErrorItem[];
    /** RATE_LIMITED, SERVICE_UNAVAILABLE: seconds to wait before retrying */
    retryAfter?: number;
  }
}

/** Codes Apollo Server and graphql-js give their own request errors. */
const APOLLO_ERROR_CODES = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
] as const;
type ApolloErrorCode = (typeof APOLLO_ERROR_CODES)[number];

// BAD_USER_INPUT: Apollo's own, a variable that does not coerce to its type.
const REQUEST_ERROR_CODES = new Set<string>([...APOLLO_ERROR_CODES, 'BAD_USER_INPUT', 'BAD_REQUEST']);

export function extensionsOf(error: AppError): GraphQLError['extensions'] {
  const { inputErrors, retryAfterSeconds, extra } = error.details;
  return {
    code: error.code,
    ...(inputErrors ? { argumentName: String(inputErrors[0]?.loc[0] ?? ''), detail: inputErrors } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfter: retryAfterSeconds } : {}),
    ...extra,
  };
}

/**
 * An error of the service raised before execution (authentication, rate limit, cost), where the
 * whole request fails: it carries its HTTP status and headers, which Apollo applies.
 */
export function requestError(error: AppError): GraphQLError {
  const headers = new Map<string, string>();
  if (error.details.retryAfterSeconds !== undefined) headers.set('retry-after', String(error.details.retryAfterSeconds));
  if (error.details.credentialsMissing) headers.set('www-authenticate', 'APIKey');
  // Apollo applies `http.headers` as a Map (its own HeaderMap), whatever graphql's typing says.
  return new GraphQLError(error.message, {
    originalError: error,
    extensions: { ...extensionsOf(error), http: { status: error.status, headers: headers as never } },
  });
}

export function appErrorOf(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof GraphQLError && error.originalError instanceof AppError) return error.originalError;
  return undefined;
}

export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const { message, locations, path } = formatted;
  const appError = appErrorOf(error);
  if (appError) return { message: appError.message, locations, path, extensions: extensionsOf(appError) };
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) return formatted;
  // The database away is the service's SERVICE_UNAVAILABLE; logged (once, as a warning) by the
  // log-errors plugin, with the request's id.
  const databaseFailure = asAppError(error);
  if (databaseFailure) return { message: databaseFailure.message, locations, path, extensions: extensionsOf(databaseFailure) };
  // Apollo's request errors that carry a 4xx status but no code (e.g. a persisted query's hash
  // that does not match) are the client's fault.
  const status = error instanceof GraphQLError ? (error.extensions.http as { status?: number } | undefined)?.status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) return { message, locations, extensions: { code: 'BAD_REQUEST' } };
  return { message: 'Internal server error', locations, path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** A validation error found before Apollo runs (authentication-gate.ts), in the words and status Apollo gives it. */
export function sendGraphqlValidationError(res: Response, error: GraphQLError): void {
  res.status(400).json({ errors: [{ ...error.toJSON(), extensions: { ...error.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } }] });
}

/**
 * An error answered before Apollo runs (the key, the organization's admission, a body the parser
 * refused), in the shape Apollo gives its own request errors. `status` when the HTTP status is
 * not the code's (body-parser's 413 and 415 are BAD_REQUEST to GraphQL clients).
 */
export function sendGraphqlError(res: Response, error: AppError, status: number = error.status): void {
  if (error.details.credentialsMissing) res.set('www-authenticate', 'APIKey');
  if (error.details.retryAfterSeconds !== undefined) res.set('retry-after', String(error.details.retryAfterSeconds));
  res.status(status).json({ errors: [{ message: error.message, extensions: extensionsOf(error) }] });
}
