/**
 * Errors go to the request's own logger (its lines carry the request id): an unexpected one in
 * full (the client only sees INTERNAL_SERVER_ERROR), the database being away as a warning. The
 * client's own mistakes are its answer, not the operator's concern: not logged.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../../../features/context';
import { answeredDatabaseFailure } from '../../../platform/db/failures';
import { appErrorOf } from '../format-error';

/** Apollo's codes for a request the client got wrong, whatever the error wraps (a validation rule's own error, say). */
const CLIENT_REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
]);

export function logErrorsPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (appErrorOf(error)) continue;
            // Request errors (parse, validation, variables) carry a code from graphql-js or Apollo.
            if (error instanceof GraphQLError && error.extensions.code !== undefined && !error.originalError) continue;
            if (CLIENT_REQUEST_CODES.has(String(error.extensions?.code))) continue;
            const cause = error.originalError ?? error;
            if (answeredDatabaseFailure(cause, contextValue.log)) continue;
            contextValue.log.error({ err: cause, path: error.path }, 'unexpected GraphQL error');
          }
        },
      };
    },
  };
}
