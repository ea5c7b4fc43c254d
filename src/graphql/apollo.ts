/**
 * Apollo Server on /graphql: the schema, depth and cost limits, errors without internals, and
 * GraphiQL (served locally, Apollo's CDN landing page is off).
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Router } from 'express';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { logger } from '../logger';
import type { GraphQLContext } from './context';
import { createContext } from './create-context';

export const MAX_QUERY_DEPTH = 8;
export const MAX_QUERY_COST = 50_000;

/** List fields cost their page size (`limit`, default 100) times what each item selects. */
const limitEstimator: ComplexityEstimator = ({ args, childComplexity, field }) => {
  if ('limit' in (args ?? {}) || field.args.some((a) => a.name === 'limit')) {
    const limit = typeof args.limit === 'number' ? args.limit : 100;
    return 1 + Math.max(limit, 1) * Math.max(childComplexity, 1);
  }
  return undefined;
};

const KNOWN_CODES = new Set(['UNAUTHENTICATED', 'NOT_FOUND', 'BAD_USER_INPUT', 'QUOTA_EXHAUSTED', 'RATE_LIMITED', 'CONFLICT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE', 'QUERY_TOO_COMPLEX']);

/** Unexpected errors are logged with the request id and reach the client as a bare message. */
function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const code = formatted.extensions?.code as string | undefined;
  if (code && KNOWN_CODES.has(code)) return formatted;
  logger.error({ err: error }, 'unexpected GraphQL error');
  return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * The cost budget needs the operation's variables (a `limit` may be one), which validation rules
 * do not see; hence a plugin, run once the operation is known and before anything executes.
 */
function queryCostPlugin(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operationName }) {
          const cost = getComplexity({
            schema,
            query: document,
            operationName: operationName ?? undefined,
            variables: request.variables ?? {},
            estimators: [limitEstimator, simpleEstimator({ defaultComplexity: 1 })],
          });
          if (cost > MAX_QUERY_COST) {
            throw new GraphQLError(
              `Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}: lower the limits or select fewer fields`,
              { extensions: { code: 'QUERY_TOO_COMPLEX', cost, maximumCost: MAX_QUERY_COST, http: { status: 400 } } },
            );
          }
        },
      };
    },
  };
}

export async function graphqlRouter(schema: GraphQLSchema, db: Database, config: AppConfig, plugins: ApolloServerPlugin<GraphQLContext>[] = []): Promise<Router> {
  const server = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: config.nodeEnv !== 'production',
    plugins: [ApolloServerPluginLandingPageDisabled(), queryCostPlugin(schema), ...plugins],
    formatError,
    validationRules: [
      depthLimit(MAX_QUERY_DEPTH),
    ],
  });
  await server.start();
  const router = express.Router();
  router.use(
    '/graphql',
    express.json({ limit: '100kb' }),
    expressMiddleware(server, {
      context: ({ req }) => createContext(db, config, req.headers, (req.headers['x-request-id'] as string | undefined) ?? undefined),
    }),
  );
  return router;
}
