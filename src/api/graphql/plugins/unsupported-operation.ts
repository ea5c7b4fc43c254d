/**
 * An operation type the schema has no root for passes graphql-js validation and fails only in
 * `execute`, with an error that has no code; a subscription is served over WebSocket only
 * (api/graphql/subscriptions), and over HTTP would fail the same way: both refused here, before execution.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';

export function unsupportedOperationPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, schema }) {
          if (!operation) return;
          if (operation.operation === 'subscription' && schema.getSubscriptionType()) {
            throw new GraphQLError('Subscriptions are served over WebSocket at this path (graphql-ws, docs/events.md), not over HTTP', {
              nodes: [operation],
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            });
          }
          if (schema.getRootType(operation.operation)) return;
          throw new GraphQLError(`This API has no ${operation.operation} operations`, {
            nodes: [operation],
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}
