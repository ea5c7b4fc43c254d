/**
 * Errors every interface understands: `extensions.code` for GraphQL clients,
 * `extensions.http.status` for Apollo and sofa, and for input errors the Pydantic-style
 * `extensions.detail` entries the REST layer returns as its 422 body.
 */
import { GraphQLError } from 'graphql';
import { DATABASE_RETRY_AFTER_SECONDS, type DatabaseFailure } from '../platform/db/failures';
import * as pydantic from '../api/contract/pydantic-errors';

/** One 422 item, Pydantic's shape; `loc` starts with the argument name (no location yet). */
export type InputErrorDetail = pydantic.PydanticErrorItem;

function error(message: string, code: string, status: number, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status }, ...extra } });
}

export const unauthenticated = (message: string) => error(message, 'UNAUTHENTICATED', 401);
export const notFound = (message: string) => error(message, 'NOT_FOUND', 404);
export const quotaExhausted = () => error('Subscription quota exhausted', 'QUOTA_EXHAUSTED', 403);
export const conflict = (message: string) => error(message, 'CONFLICT', 409);
export const rateLimited = (retryAfterSeconds: number) =>
  error('Rate limit exceeded', 'RATE_LIMITED', 429, { retryAfter: retryAfterSeconds });

/** The database is unreachable or too slow right now (db/failures.ts): 503, retry later. */
export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';
export const serviceUnavailable = (failure: DatabaseFailure) =>
  new GraphQLError(failure.message, {
    extensions: {
      code: SERVICE_UNAVAILABLE,
      retryAfter: DATABASE_RETRY_AFTER_SECONDS,
      // Apollo turns `http` into the response's status and headers; it takes headers only as a Map
      // (sofa's typings declare a Record, but this error is thrown only where Apollo reads it).
      http: { status: 503, headers: new Map([['retry-after', String(DATABASE_RETRY_AFTER_SECONDS)]]) as never },
    },
  });

/**
 * Bad input found by a service (after the schema's own type checks). `loc` is relative to the
 * argument list, e.g. ['order_by']; the REST layer prefixes it with the argument's location.
 */
export function badUserInput(details: InputErrorDetail[]): GraphQLError {
  const first = details[0];
  const message = details.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');
  return error(message, 'BAD_USER_INPUT', 422, { argumentName: first?.loc[0], detail: details });
}

/** Pydantic's `value_error` item for an argument, e.g. an unknown `order_by` field. */
export function valueErrorDetail(argument: string, message: string, input: unknown): InputErrorDetail {
  return pydantic.atLoc([argument], pydantic.valueError(input, message));
}

export function valueError(argument: string, message: string, input: unknown): GraphQLError {
  return badUserInput([valueErrorDetail(argument, message, input)]);
}
