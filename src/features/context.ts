/**
 * What a resolver gets for one request, whichever interface it came through. The API layer
 * (api/request-context.ts) makes it once the key is known; features read it, never build it.
 */
import type { PrismaClient } from '../generated/prisma/client';
import type { Database } from '../platform/db/database';
import type { Logger } from '../platform/logger';
import type { RateLimits } from '../platform/rate-limit/rate-limiter';
import type { AnswerBudget } from '../shared/answer-budget';
import type { CursorCodec } from '../shared/cursor';
import { notAuthenticated } from '../shared/errors';
import type { ApiKeyPrincipal } from './auth/api-keys';
import type { EventWakeups } from './events/event-wakeups';
import type { StreamOptions } from './events/event-stream';
import type { Loaders } from './loaders';

export interface RequestContext {
  /** `db.prisma` is the primary: writes, and reads that must see them (idempotency, quota). */
  db: Database;
  /**
   * List and fetch reads: a read replica when one is configured and usable (it may lag by up to
   * REPLICA_MAX_LAG_MS), else the primary. Fetches by id go through `loaders`, which ask the
   * primary again on a miss.
   */
  reads: PrismaClient;
  /** Where a fetch by id that `reads` did not find asks again (the primary, when `reads` is a replica that may lag). */
  primaryOnMiss?: PrismaClient;
  /** The key's organization and the key itself; null only for the keyless requests the API layer lets through (introspection). */
  principal: ApiKeyPrincipal | null;
  /** Per-request DataLoaders: batch and cache every relation within one request only. */
  loaders: Loaders;
  /** Lead creation has its own budget on top of the request budget. */
  rateLimits: RateLimits;
  requestId: string;
  /** The request's child logger: every line carries the request id. */
  log: Logger;
  /** Base of the report links sent to clients. */
  appBaseUrl: string;
  /** The client's address (as TRUST_PROXY says): a keyless request's work is charged to it. */
  clientAddress?: string;
  /** Signs and reads the lists' keyset cursors (CURSOR_SECRET). */
  cursors: CursorCodec;
  /** Webhook receivers on private addresses allowed (development only: SSRF). */
  webhooksAllowPrivate: boolean;
  /** The request's `Idempotency-Key` header, already checked. */
  idempotencyKey?: string;
  /** The values this request's answer may still hold (counted as it is built, on both interfaces). */
  answerBudget?: AnswerBudget;
  /** Set on GraphQL subscriptions only (api/graphql/subscriptions): what wakes their feed readers. */
  feedFollowing?: { wakeups: EventWakeups; options: StreamOptions };
}

/** The key's organization; every root field starts here. */
export function requireOrganization(context: RequestContext): string {
  if (!context.principal) throw notAuthenticated();
  return context.principal.organizationId;
}
