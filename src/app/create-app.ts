import express, { type Express } from 'express';
import type { AppConfig } from './config';
import type { Database } from '../platform/db/database';
import { GRAPHIQL_EXAMPLE_QUERY, graphqlRouter } from '../api/graphql/server';
import { graphiqlRouter } from '../api/graphql/graphiql';
import { buildAppSchema } from '../api/graphql/schema';
import { createMetrics, type ApiInterface, type AppMetrics } from '../platform/metrics/metrics';
import { metricsRouter } from '../platform/metrics/metrics-router';
import { buildOpenApiDocument } from '../api/openapi/openapi-document';
import { createRateLimits, reportingRejections, type RateLimits } from '../platform/rate-limit/rate-limiter';
import { restRouter } from '../api/rest/rest-router';
import { swaggerUiRouter } from '../api/openapi/swagger-ui';
import { errorHandler, notFoundHandler } from '../api/http-errors';
import { healthRoutes } from '../platform/http/health';
import { queryStringLimit, requestDeadline } from '../platform/http/limits';
import { accessLog } from '../platform/http/access-log';
import { corsPolicy, securityHeaders } from '../platform/http/security';

export interface AppContext {
  db: Database;
  config: AppConfig;
  isShuttingDown?: () => boolean;
  /** Shared with other instances through Redis when configured; made from the config when absent. */
  rateLimits?: RateLimits;
  /** Made per app when absent; main.ts passes the one the database's onQuery and the dispatcher feed. */
  metrics?: AppMetrics;
}

export async function createApp(context: AppContext): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.use(accessLog);
  app.use(securityHeaders());
  const metrics = context.metrics ?? createMetrics();
  if (context.config.metrics.enabled) app.use(metricsRouter(metrics, { prisma: context.db.prisma, token: context.config.metrics.token }));
  // Before anything that authenticates or counts: a CORS preflight carries no API key.
  const cors = corsPolicy(context.config.corsOrigins);
  if (cors) app.use(cors);
  app.use(queryStringLimit(), requestDeadline(context.config.requestTimeoutMs));
  app.use(healthRoutes(context.db, context.isShuttingDown));
  const schema = await buildAppSchema();
  const rateLimits = context.rateLimits ?? createRateLimits(context.config.rateLimits);
  // One budget for both interfaces; each reports its own refusals to the metrics.
  const services = (api: ApiInterface) => ({
    db: context.db,
    config: context.config,
    rateLimits: reportingRejections(rateLimits, metrics.rateLimitRejected(api)),
  });
  // Before Apollo on the same path: it answers browsers asking for HTML and passes the rest on.
  app.use(graphiqlRouter({ endpoint: '/graphql', exampleQuery: GRAPHIQL_EXAMPLE_QUERY }));
  app.use(await graphqlRouter(schema, services('graphql')));
  // Built once from the same schema the REST layer runs, so the document cannot drift from it.
  const openApiDocument = JSON.stringify(buildOpenApiDocument(schema));
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openApiDocument);
  });
  app.use(swaggerUiRouter({ path: '/docs', openApiUrl: '/openapi.json' }));
  app.use(restRouter(schema, services('rest')));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
