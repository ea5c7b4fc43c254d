import express, { type Express } from 'express';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { GRAPHIQL_EXAMPLE_QUERY, graphqlRouter } from '../graphql/apollo';
import { graphiqlRouter } from '../graphql/graphiql';
import { buildAppSchema } from '../graphql/schema';
import { buildOpenApiDocument } from '../rest/openapi';
import { createRateLimits, type RateLimits } from '../rate-limit/rate-limiter';
import { restRouter } from '../rest/rest-router';
import { swaggerUiRouter } from '../rest/swagger-ui';
import { errorHandler, notFoundHandler } from './error-handler';
import { healthRoutes } from './health';
import { accessLog } from './request-context';

export interface AppContext {
  db: Database;
  config: AppConfig;
  isShuttingDown?: () => boolean;
  /** Shared with other instances through Redis when configured; made from the config when absent. */
  rateLimits?: RateLimits;
}

export async function createApp(context: AppContext): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.use(accessLog);
  app.use(healthRoutes(context.db, context.isShuttingDown));
  const schema = await buildAppSchema();
  const services = {
    db: context.db,
    config: context.config,
    rateLimits: context.rateLimits ?? createRateLimits(context.config.rateLimits),
  };
  // Before Apollo on the same path: it answers browsers asking for HTML and passes the rest on.
  app.use(graphiqlRouter({ endpoint: '/graphql', exampleQuery: GRAPHIQL_EXAMPLE_QUERY }));
  app.use(await graphqlRouter(schema, services));
  // Built once from the same schema the REST layer runs, so the document cannot drift from it.
  const openApiDocument = JSON.stringify(buildOpenApiDocument(schema));
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openApiDocument);
  });
  app.use(swaggerUiRouter({ path: '/docs', openApiUrl: '/openapi.json' }));
  app.use(restRouter(schema, services));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
