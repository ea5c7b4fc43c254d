/**
 * The database being away, as GraphQL answers it: a resolver's error cannot set the HTTP status
 * (Apollo reads `extensions.http` before formatError runs), so once the errors are formatted, any
 * SERVICE_UNAVAILABLE makes the whole response a 503 with Retry-After: balancers and clients
 * retry it like the REST interface's.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../../platform/db/failures';

export function databaseFailureStatusPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const errors = response.body.singleResult.errors ?? [];
          if (!errors.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        },
      };
    },
  };
}
