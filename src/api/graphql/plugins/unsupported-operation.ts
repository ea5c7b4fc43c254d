/**
 * A subscription (or any operation type the schema has no root for) passes graphql-js validation
 * and fails only in `execute`, with an error that has no code: refused here, before execution.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';

export function unsupportedOperationPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, schema }) {
          if (!operation || schema.getRootType(operation.operation)) return;
          throw new GraphQLError(`This API has no ${operation.operation} operations`, {
            nodes: [operation],
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}
