import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { authenticateRequest } from '../auth/request-auth';
import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { GraphQLContext } from './context';
import { createLoaders } from './loaders';

export async function createContext(
  db: Database,
  config: AppConfig,
  headers: IncomingHttpHeaders,
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const auth = await authenticateRequest(db.prisma, headers['x-api-key']);
  const organizationId = auth.status === 'authenticated' ? auth.principal.organizationId : null;
  return { db, config, auth, loaders: createLoaders(db.prisma, organizationId), requestId, headers };
}
