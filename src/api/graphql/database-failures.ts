/**
 * The database being unreachable, as GraphQL answers it: code SERVICE_UNAVAILABLE, HTTP 503 and
 * Retry-After, where it would otherwise be an INTERNAL_SERVER_ERROR. Whether an error is such a
 * failure is decided in one place for both interfaces: db/failures.ts.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import { answeredDatabaseFailure, DATABASE_RETRY_AFTER_SECONDS } from '../../platform/db/failures';
import { SERVICE_UNAVAILABLE, serviceUnavailable } from '../../shared/errors';

/** For the context function: a failure while authenticating becomes a 503 GraphQL error. */
export function asServiceUnavailable(error: unknown): unknown {
  const failure = answeredDatabaseFailure(error);
  return failure ? serviceUnavailable(failure) : error;
}

/** For formatError: a resolver's database failure, reported as such instead of an internal error. */
export function formatDatabaseFailure(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError | undefined {
  const failure = answeredDatabaseFailure(error);
  if (!failure) return undefined;
  return {
    message: failure.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: SERVICE_UNAVAILABLE, retryAfter: DATABASE_RETRY_AFTER_SECONDS },
  };
}

/**
 * A resolver's error cannot set the HTTP status (Apollo reads `extensions.http` before formatError
 * runs), so the status is set here, once the errors are formatted: any SERVICE_UNAVAILABLE makes
 * the whole response a 503.
 */
export function databaseFailureStatusPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const errors = response.body.singleResult.errors ?? [];
          if (!errors.some((e) => e.extensions?.code === SERVICE_UNAVAILABLE)) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        },
      };
    },
  };
}
