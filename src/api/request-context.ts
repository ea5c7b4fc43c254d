import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { authenticateRequest } from '../features/auth/request-auth';
import type { AppConfig } from '../app/config';
import type { Database } from '../platform/db/database';
import type { RateLimits } from '../platform/rate-limit/rate-limiter';
import type { GraphQLContext } from '../features/context';
import { createLoaders } from '../features/loaders';

/** What every request of either interface needs. */
export interface RequestServices {
  db: Database;
  config: AppConfig;
  rateLimits: RateLimits;
}

/**
 * Authenticates the request and, for a valid key, counts it against the key's rate limit; the
 * caller decides how to answer a refusal (REST 429, GraphQL RATE_LIMITED).
 */
export async function createContext(
  services: RequestServices,
  headers: IncomingHttpHeaders,
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const { db, config, rateLimits } = services;
  const auth = await authenticateRequest(db.prisma, headers['x-api-key']);
  const organizationId = auth.status === 'authenticated' ? auth.principal.organizationId : null;
  const rateLimit = auth.status === 'authenticated' ? await rateLimits.requests.consume(auth.principal.keyId) : undefined;
  return { db, config, rateLimits, auth, rateLimit, loaders: createLoaders(db.prisma, organizationId), requestId, headers };
}
