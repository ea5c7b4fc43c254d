/**
 * GraphQL over HTTP for clients that accept only `application/json` (the legacy media type): a
 * request that fails to parse, validate or coerce its variables SHOULD still be a 200 there, the
 * errors in the body, because such clients cannot tell a GraphQL error body from a proxy's 400.
 * Clients that accept `application/graphql-response+json` keep the 4xx. Errors outside GraphQL
 * (401, 413, 429, 503) are HTTP's own and stay as they are.
 */
import type { ApolloServerPlugin } from '@apollo/server';

const GRAPHQL_REQUEST_ERROR_STATUS = 400;

export function legacyJsonStatusPlugin<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart({ request }) {
      const accept = request.http?.headers.get('accept') ?? '';
      const legacyOnly = /\bapplication\/json\b/i.test(accept) && !/\bapplication\/graphql-response\+json\b/i.test(accept);
      if (!legacyOnly) return;
      return {
        async willSendResponse({ response }) {
          if (response.http.status === GRAPHQL_REQUEST_ERROR_STATUS && response.body.kind === 'single') response.http.status = 200;
        },
      };
    },
  };
}
