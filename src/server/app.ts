import express, { type Express } from 'express';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import { graphqlRouter } from '../graphql/apollo';
import { buildAppSchema } from '../graphql/schema';
import { restRouter } from '../rest/rest-router';
import { healthRoutes } from './health';

export interface AppContext {
  db: Database;
  config: AppConfig;
  isShuttingDown?: () => boolean;
}

export async function createApp(context: AppContext): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRoutes(context.db, context.isShuttingDown));
  const schema = await buildAppSchema();
  app.use(await graphqlRouter(schema, context.db, context.config));
  app.use(restRouter(schema, context.db, context.config));
  return app;
}
