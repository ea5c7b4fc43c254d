import type { RequestAuth } from './auth/request-auth';
import type { AppConfig } from '../app/config';
import type { Database } from '../platform/db/database';
import type { RateLimitDecision, RateLimits } from '../platform/rate-limit/rate-limiter';
import { unauthenticated } from '../shared/errors';
import type { Loaders } from './loaders';

export interface GraphQLContext {
  db: Database;
  config: AppConfig;
  auth: RequestAuth;
  rateLimits: RateLimits;
  /** This request's place in the key's request budget (absent without a valid key). */
  rateLimit?: RateLimitDecision;
  /** Per-request DataLoaders: batch and cache every relation within one request only. */
  loaders: Loaders;
  requestId: string;
  /** Raw request headers (create-lead reads Idempotency-Key). */
  headers: Record<string, string | string[] | undefined>;
}

/** The key's organization; every root field starts here (decisions.md: 401 texts). */
export function requireOrganization(context: GraphQLContext): string {
  if (context.auth.status === 'missing') throw unauthenticated('Not authenticated');
  if (context.auth.status === 'invalid') throw unauthenticated('Invalid API key');
  return context.auth.principal.organizationId;
}
