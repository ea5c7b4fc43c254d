/**
 * Apollo Server on /graphql: the schema, depth and cost limits, errors without internals, and
 * GraphiQL (served locally, Apollo's CDN landing page is off).
 */
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type Router } from 'express';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema, type ValidationContext, type ValidationRule } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { logger } from '../../platform/logger';
import type { GraphQLContext } from '../../features/context';
import { createContext, type RequestServices } from '../request-context';
import { asServiceUnavailable, databaseFailureStatusPlugin, formatDatabaseFailure } from './database-failures';
import { rateLimited } from '../../shared/errors';
import { formatClientRequestError, graphqlBodyErrors, hasBrokenFragments, unsupportedOperationPlugin } from './malformed-requests';
import { recordOrganization } from '../../platform/http/access-log';

export const MAX_QUERY_DEPTH = 8;

/**
 * What GraphiQL shows on a first visit: a page of reports with their relations, and a full report
 * (vehicle and state). The full report is reached through `counter` (a counter-inspection's
 * original report) so that the example runs as is, with no report id to paste first.
 */
export const GRAPHIQL_EXAMPLE_QUERY = `# Vehicle Report API. Put your key in Headers (below),
# then run. The book icon opens the docs.
query LatestReports {
  reports(limit: 5) {
    total
    items {
      token
      created_at
      type
      data { vehicle { vin license_number } }
      dealership { name }
      profile { name email }
      organization { name }
    }
  }
  # A full report, as report(report_id: "...") returns
  # it: the one the latest counter-inspection re-checks.
  counterInspections: reports(type: counter_inspection, limit: 1) {
    items {
      token
      counter {
        token
        data {
          vehicle {
            vin
            specifications { brand model year fuel }
            license { number }
          }
        }
        state {
          folder_created { status date }
          folder_sold { status date }
          counter_inspected { status date }
        }
      }
    }
  }
}
`;
export const MAX_QUERY_COST = 50_000;

/** List fields cost their page size (`limit`, default 100) times what each item selects. */
const limitEstimator: ComplexityEstimator = ({ args, childComplexity, field }) => {
  if ('limit' in (args ?? {}) || field.args.some((a) => a.name === 'limit')) {
    const limit = typeof args.limit === 'number' ? args.limit : 100;
    return 1 + Math.max(limit, 1) * Math.max(childComplexity, 1);
  }
  return undefined;
};

const KNOWN_CODES = new Set(['UNAUTHENTICATED', 'NOT_FOUND', 'BAD_USER_INPUT', 'QUOTA_EXHAUSTED', 'RATE_LIMITED', 'CONFLICT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'OPERATION_RESOLUTION_FAILURE', 'QUERY_TOO_COMPLEX', 'SERVICE_UNAVAILABLE']);

/** Unexpected errors are logged with the request id and reach the client as a bare message. */
function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const code = formatted.extensions?.code as string | undefined;
  if (code && KNOWN_CODES.has(code)) return formatted;
  const databaseFailure = formatDatabaseFailure(formatted, error);
  if (databaseFailure) return databaseFailure;
  const clientError = formatClientRequestError(formatted, error);
  if (clientError) return clientError;
  logger.error({ err: error }, 'unexpected GraphQL error');
  return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * graphql-depth-limit names the operation in its message ("'' exceeds ..." when it is anonymous);
 * this says what is wrong and what to do, once per operation.
 */
const depthLimitRule: ValidationRule = (context: ValidationContext) => {
  const reported = new Set<string>();
  const rewording = Object.create(context, {
    reportError: {
      value: (error: GraphQLError) => {
        const operation = /^'(.*)' exceeds/.exec(error.message)?.[1] ?? '';
        if (reported.has(operation)) return;
        reported.add(operation);
        const subject = operation ? `Operation '${operation}'` : 'The query';
        context.reportError(
          new GraphQLError(`${subject} is nested more than ${MAX_QUERY_DEPTH} levels deep: select fewer nested relations`, {
            nodes: error.nodes,
            extensions: { maximumDepth: MAX_QUERY_DEPTH },
          }),
        );
      },
    },
  }) as ValidationContext;
  // graphql-depth-limit throws on an unknown fragment and loops on a cycle; graphql-js reports both.
  if (hasBrokenFragments(context.getDocument())) return {};
  return depthLimit(MAX_QUERY_DEPTH)(rewording);
};

/**
 * The cost budget needs the operation's variables (a `limit` may be one), which validation rules
 * do not see; hence a plugin, run once the operation is known and before anything executes.
 */
function queryCostPlugin(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operationName }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              query: document,
              operationName: operationName ?? undefined,
              variables: request.variables ?? {},
              estimators: [limitEstimator, simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (error) {
            // getComplexity coerces the variables first; a bad one (e.g. "nope" for a UUID) would
            // surface as an internal error. Nothing executes with invalid variables, so leave them
            // to Apollo's own coercion, which answers 400 BAD_USER_INPUT naming the variable.
            if (error instanceof GraphQLError) return;
            throw error;
          }
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

export async function graphqlRouter(schema: GraphQLSchema, services: RequestServices, plugins: ApolloServerPlugin<GraphQLContext>[] = []): Promise<Router> {
  const server = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: services.config.nodeEnv !== 'production',
    plugins: [ApolloServerPluginLandingPageDisabled(), unsupportedOperationPlugin(), queryCostPlugin(schema), databaseFailureStatusPlugin(), ...plugins],
    formatError,
    validationRules: [
      depthLimitRule,
    ],
  });
  await server.start();
  const router = express.Router();
  router.use(
    '/graphql',
    express.json({ limit: '100kb' }),
    graphqlBodyErrors,
    expressMiddleware(server, {
      context: async ({ req, res }) => {
        const context = await createContext(services, req.headers, res.getHeader('x-request-id') as string | undefined).catch((error: unknown) => {
          throw asServiceUnavailable(error);
        });
        recordOrganization(res, context.auth.status === 'authenticated' ? context.auth.principal.organizationId : null);
        if (context.rateLimit) {
          res.set(context.rateLimit.headers);
          if (!context.rateLimit.allowed) throw rateLimited(context.rateLimit.retryAfterSeconds);
        }
        return context;
      },
    }),
  );
  return router;
}
