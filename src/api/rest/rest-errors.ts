/**
 * The service's errors as the FastAPI service answered them: status from the error's code, body
 * `{"detail": ...}`, 422 items with `loc` prefixed by where the argument came from.
 */
import type { GraphQLError } from 'graphql';
import { DATABASE_RETRY_AFTER_SECONDS, answeredDatabaseFailure } from '../../platform/db/failures';
import type { Logger } from '../../platform/logger';
import type { AppError } from '../../shared/errors';
import { appErrorOf } from '../graphql/format-error';
import type { Location } from '../contract/pydantic-errors';

export interface RestErrorResponse {
  status: number;
  body: { detail: unknown };
  headers: Record<string, string>;
}

export const INTERNAL_ERROR: RestErrorResponse = { status: 500, body: { detail: 'Internal Server Error' }, headers: {} };

/** `locationOf` places a failing argument's item: `['order_by']` → `['query', 'order_by']`. */
export function restErrorOf(error: AppError, locationOf: (argument: string) => Location): RestErrorResponse {
  const headers: Record<string, string> = {};
  if (error.details.credentialsMissing) headers['www-authenticate'] = 'APIKey';
  if (error.details.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.details.retryAfterSeconds);
  if (error.code === 'BAD_USER_INPUT') {
    const items = (error.details.inputErrors ?? []).map((item) =>
      typeof item.loc[0] === 'string' && !isLocation(item.loc[0]) ? { ...item, loc: [locationOf(item.loc[0]), ...item.loc] } : item,
    );
    return { status: 422, body: { detail: items }, headers };
  }
  return { status: error.status, body: { detail: error.message }, headers };
}

const LOCATIONS = new Set<string>(['query', 'path', 'body', 'header']);
const isLocation = (segment: string) => LOCATIONS.has(segment);

/** What a route's execution failed with, answered: the service's error, the database away (503), or a 500. */
export function restErrorFromExecution(
  errors: readonly GraphQLError[],
  locationOf: (argument: string) => Location,
  log: Logger,
): RestErrorResponse {
  const error = errors[0];
  const appError = appErrorOf(error);
  if (appError) return restErrorOf(appError, locationOf);
  const databaseFailure = answeredDatabaseFailure(error?.originalError ?? error, log);
  if (databaseFailure) {
    return { status: 503, body: { detail: databaseFailure.message }, headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } };
  }
  log.error({ err: error?.originalError ?? error }, 'unexpected error on a REST route');
  return INTERNAL_ERROR;
}
