/**
 * GraphQL errors as the FastAPI service's responses (decisions.md, "Errors (REST)"): status from
 * `extensions.http.status`, body `{"detail": ...}`, 422 items with `loc` prefixed by where the
 * argument came from.
 */
import type { GraphQLError } from 'graphql';
import { answeredDatabaseFailure, DATABASE_RETRY_AFTER_SECONDS } from '../../platform/db/failures';
import type { InputErrorDetail } from '../../shared/errors';
import { logger } from '../../platform/logger';
import { locationOf, REST_ROUTES, fieldNameOf } from './routes';

export interface RestErrorResponse {
  status: number;
  body: { detail: unknown };
  headers: Record<string, string>;
}

const INTERNAL_ERROR: RestErrorResponse = {
  status: 500,
  body: { detail: 'Internal Server Error' },
  headers: {},
};

export function restErrorFrom(errors: readonly GraphQLError[], requestId?: string): RestErrorResponse {
  const error = errors[0];
  const code = error?.extensions?.code;
  const status = (error?.extensions?.http as { status?: number } | undefined)?.status;
  const databaseFailure = answeredDatabaseFailure(error?.originalError ?? error, { requestId });
  if (databaseFailure) {
    return { status: 503, body: { detail: databaseFailure.message }, headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } };
  }
  if (!error || typeof code !== 'string' || typeof status !== 'number') {
    logger.error({ err: error?.originalError ?? error, requestId }, 'unexpected error on a REST route');
    return INTERNAL_ERROR;
  }
  if (code === 'BAD_USER_INPUT') {
    const fieldName = error.path?.[0];
    const route = REST_ROUTES.find((r) => fieldNameOf(r) === fieldName);
    const details = (error.extensions.detail as InputErrorDetail[] | undefined) ?? [];
    return {
      status: 422,
      body: {
        detail: details.map((d) => ({
          ...d,
          loc: route && typeof d.loc[0] === 'string' ? [locationOf(route, d.loc[0]), ...d.loc] : d.loc,
        })),
      },
      headers: {},
    };
  }
  const headers: Record<string, string> = {};
  if (code === 'UNAUTHENTICATED' && error.message === 'Not authenticated') headers['www-authenticate'] = 'APIKey';
  if (code === 'RATE_LIMITED' && typeof error.extensions.retryAfter === 'number') {
    headers['retry-after'] = String(error.extensions.retryAfter);
  }
  return { status, body: { detail: error.message }, headers };
}
