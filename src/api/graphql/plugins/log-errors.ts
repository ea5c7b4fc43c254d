/**
 * Errors go to the request's own logger (its lines carry the request id): an unexpected one in
 * full (the client only sees INTERNAL_SERVER_ERROR), the database being away as a warning. The
 * client's own mistakes are its answer, not the operator's concern: at debug level, without a
 * stack, whatever caused them (a scalar's parse error under a validation error carries its own
 * stack: any client sending bad UUIDs flooded the error log, ~15,800 lines in one fuzz run).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../../../features/context';
import { answeredDatabaseFailure } from '../../../platform/db/failures';
import { appErrorOf } from '../format-error';

/** Codes of the client's own mistakes (request errors, refused input). */
const CLIENT_ERROR_CODES = new Set<unknown>([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

export function logErrorsPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            const code = error instanceof GraphQLError ? error.extensions.code : undefined;
            if (CLIENT_ERROR_CODES.has(code) || (appErrorOf(error) && appErrorOf(error)!.status < 500)) {
              contextValue.log.debug({ code, message: error.message, path: error.path }, 'client error');
              continue;
            }
            if (appErrorOf(error)) continue;
            // Request errors (parse, validation, variables) carry a code from graphql-js or Apollo.
            if (error instanceof GraphQLError && error.extensions.code !== undefined && !error.originalError) continue;
            const cause = error.originalError ?? error;
            if (answeredDatabaseFailure(cause, contextValue.log)) continue;
            contextValue.log.error({ err: cause, path: error.path }, 'unexpected GraphQL error');
          }
        },
      };
    },
  };
}
