/**
 * Rate limits (429 with Retry-After and the IETF httpapi RateLimit headers): a budget of points per
 * organization (a request costs the SQL statements it may run), a lower one for lead creation, and
 * one per client address for requests without a valid key. Shared across instances through Redis
 * when REDIS_URL is set; when Redis is down the limits fall back to per-instance memory
 * (rate-limiter-flexible's insurance limiter) with a warning, and the service keeps serving.
 */
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { logger } from '../logger';

export interface RateLimitPolicy {
  /** name in the RateLimit-Policy header */
  name: string;
  /** requests allowed per window */
  points: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** headers to send with the response, allowed or not */
  headers: Record<string, string>;
  retryAfterSeconds: number;
  /** refused: the points asked for in this window, as a multiple of the budget (2: twice the budget) */
  overdrawn?: number;
}

export interface RateLimiter {
  /** Takes `points` (default 1) from the key's budget; refused when fewer remain. */
  consume(key: string, points?: number): Promise<RateLimitDecision>;
  /** Whether the key's budget is already spent, without taking anything. */
  isExhausted(key: string): Promise<boolean>;
  /** The refusal last answered here for the key while it holds (a budget cannot refill before its window ends). */
  refusal(key: string): RateLimitDecision | undefined;
}

/** Refusals remembered at most: past this, expired ones are swept (keyless addresses can be many). */
const MAX_REMEMBERED_REFUSALS = 10_000;

/**
 * The refusals still in force, by key. Refused once, a key stays refused until its window ends:
 * rate-limiter-flexible counts a refused consume too, so the budget stays overdrawn.
 */
function refusalMemory() {
  const until = new Map<string, { expiresAt: number; policy: RateLimitPolicy; overdrawn: number }>();
  return {
    remember(key: string, policy: RateLimitPolicy, msBeforeNext: number, overdrawn: number) {
      if (until.size >= MAX_REMEMBERED_REFUSALS) {
        const now = Date.now();
        for (const [k, v] of until) if (v.expiresAt <= now) until.delete(k);
        if (until.size >= MAX_REMEMBERED_REFUSALS) until.clear();
      }
      until.set(key, { expiresAt: Date.now() + msBeforeNext, policy, overdrawn });
    },
    recall(key: string): RateLimitDecision | undefined {
      const entry = until.get(key);
      if (!entry) return undefined;
      const left = entry.expiresAt - Date.now();
      if (left <= 0) {
        until.delete(key);
        return undefined;
      }
      return { ...refused(entry.policy, Math.max(1, Math.ceil(left / 1000))), overdrawn: entry.overdrawn };
    },
  };
}

function refused(policy: RateLimitPolicy, retryAfter: number): RateLimitDecision {
  return {
    allowed: false,
    headers: { ...headersFor(policy, 0, retryAfter), 'retry-after': String(retryAfter) },
    retryAfterSeconds: retryAfter,
  };
}

function headersFor(policy: RateLimitPolicy, remaining: number, resetSeconds: number): Record<string, string> {
  // draft-ietf-httpapi-ratelimit-headers: structured fields naming the policy.
  return {
    'ratelimit-policy': `"${policy.name}";q=${policy.points};w=${policy.windowSeconds}`,
    ratelimit: `"${policy.name}";r=${Math.max(0, remaining)};t=${Math.max(0, resetSeconds)}`,
  };
}

export function createRateLimiter(policy: RateLimitPolicy, redis?: Redis): RateLimiter {
  const options = { keyPrefix: `vr-rl-${policy.name}`, points: policy.points, duration: policy.windowSeconds };
  const memory = new RateLimiterMemory(options);
  const limiter: RateLimiterAbstract = redis ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory }) : memory;
  const refusals = refusalMemory();
  return {
    async consume(key, points = 1) {
      try {
        const result = await limiter.consume(key, points);
        const reset = Math.ceil(result.msBeforeNext / 1000);
        // The last point taken: every request costs at least one, so the next is refused whatever
        // it sends. Known now, that refusal costs the next request no parsing (issue 45: requests
        // that arrived together each parsed their document before the first refusal was counted).
        if (result.remainingPoints <= 0 && (!redis || redis.status === 'ready')) refusals.remember(key, policy, result.msBeforeNext, 1);
        return { allowed: true, headers: headersFor(policy, result.remainingPoints, reset), retryAfterSeconds: 0 };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const decision = {
          ...refused(policy, Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))),
          overdrawn: rejection.consumedPoints / policy.points,
        };
        // Only a refusal of the shared budget holds until its window ends: one from the insurance
        // limiter (Redis away) says nothing of the budget Redis will count again once back.
        if (!redis || redis.status === 'ready') refusals.remember(key, policy, rejection.msBeforeNext, decision.overdrawn);
        return decision;
      }
    },
    async isExhausted(key) {
      if (refusals.recall(key)) return true;
      const state = await limiter.get(key).catch(() => null);
      return state !== null && state.remainingPoints <= 0;
    },
    refusal: (key) => refusals.recall(key),
  };
}

/** A Redis client that never blocks a request on a Redis that is down. */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: false });
  let warned = false;
  redis.on('error', (error) => {
    if (!warned) logger.warn({ err: error }, 'Redis unavailable: rate limits fall back to per-instance memory');
    warned = true;
  });
  redis.on('ready', () => {
    if (warned) logger.info('Redis reachable again: rate limits shared across instances');
    warned = false;
  });
  return redis;
}

export interface RateLimits {
  /** per organization, in points (SQL statements a request may run) */
  requests: RateLimiter;
  /** lead creations per organization */
  leads: RateLimiter;
  /** per client address, for requests without a valid key (missing or failed authentication) */
  anonymous: RateLimiter;
  close(): Promise<void>;
}

/** `concurrency`: refused by the per-organization cap on requests in progress (concurrency-limiter.ts). */
export type RateLimitKind = 'requests' | 'leads' | 'anonymous' | 'concurrency';

/** The same limits (same budgets), each one's `consume` seen through `wrap`. */
export function wrappedConsumes(
  limits: RateLimits,
  wrap: (kind: Exclude<RateLimitKind, 'concurrency'>, consume: RateLimiter['consume']) => RateLimiter['consume'],
): RateLimits {
  const wrapped = (kind: Exclude<RateLimitKind, 'concurrency'>): RateLimiter => ({
    consume: wrap(kind, (key, points) => limits[kind].consume(key, points)),
    isExhausted: (key) => limits[kind].isExhausted(key),
    refusal: (key) => limits[kind].refusal(key),
  });
  return { requests: wrapped('requests'), leads: wrapped('leads'), anonymous: wrapped('anonymous'), close: () => limits.close() };
}

/**
 * The same limits, telling `onRejected` of every refusal: metrics count them. A `refusal` check
 * reports nothing: whoever answers the 429 it allows reports it.
 */
export function reportingRejections(limits: RateLimits, onRejected: (kind: RateLimitKind) => void): RateLimits {
  return wrappedConsumes(limits, (kind, consume) => async (key, points) => {
    const decision = await consume(key, points);
    if (!decision.allowed) onRejected(kind);
    return decision;
  });
}

export interface RateLimitSettings {
  redisUrl?: string;
  /** points per minute per organization */
  requestsPerMinute: number;
  leadsPerMinute: number;
  /** requests per minute per client address without a valid key */
  anonymousPerMinute: number;
}

export function createRateLimits(options: RateLimitSettings): RateLimits {
  const redis = options.redisUrl ? connectRedis(options.redisUrl) : undefined;
  return {
    requests: createRateLimiter({ name: 'requests', points: options.requestsPerMinute, windowSeconds: 60 }, redis),
    leads: createRateLimiter({ name: 'leads', points: options.leadsPerMinute, windowSeconds: 60 }, redis),
    anonymous: createRateLimiter({ name: 'anonymous', points: options.anonymousPerMinute, windowSeconds: 60 }, redis),
    async close() {
      redis?.disconnect();
    },
  };
}
