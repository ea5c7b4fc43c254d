/**
 * Per-API-key rate limits (decisions.md: 429 with Retry-After and the IETF httpapi RateLimit
 * headers). Shared across instances through Redis when REDIS_URL is set; when Redis is down the
 * limits fall back to per-instance memory (rate-limiter-flexible's insurance limiter) with a
 * warning, and the service keeps serving.
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
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitDecision>;
}

function headersFor(policy: RateLimitPolicy, remaining: number, resetSeconds: number): Record<string, string> {
  // draft-ietf-httpapi-ratelimit-headers: structured fields naming the policy.
  return {
    'ratelimit-policy': `"${policy.name}";q=${policy.points};w=${policy.windowSeconds}`,
    ratelimit: `"${policy.name}";r=${Math.max(0, remaining)};t=${Math.max(0, resetSeconds)}`,
  };
}

export function createRateLimiter(policy: RateLimitPolicy, redis?: Redis): RateLimiter {
  const memory = new RateLimiterMemory({ keyPrefix: `vr-rl-${policy.name}`, points: policy.points, duration: policy.windowSeconds });
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `vr-rl-${policy.name}`,
        points: policy.points,
        duration: policy.windowSeconds,
        insuranceLimiter: memory,
      })
    : memory;
  return {
    async consume(key) {
      try {
        const result = await limiter.consume(key);
        const reset = Math.ceil(result.msBeforeNext / 1000);
        return { allowed: true, headers: headersFor(policy, result.remainingPoints, reset), retryAfterSeconds: 0 };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        return {
          allowed: false,
          headers: { ...headersFor(policy, 0, retryAfter), 'retry-after': String(retryAfter) },
          retryAfterSeconds: retryAfter,
        };
      }
    },
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
  requests: RateLimiter;
  leads: RateLimiter;
  close(): Promise<void>;
}

export type RateLimitKind = 'requests' | 'leads';

/** The same limits (same budgets), telling `onRejected` of every refusal: metrics count them. */
export function reportingRejections(limits: RateLimits, onRejected: (kind: RateLimitKind) => void): RateLimits {
  const reporting = (kind: RateLimitKind): RateLimiter => ({
    async consume(key) {
      const decision = await limits[kind].consume(key);
      if (!decision.allowed) onRejected(kind);
      return decision;
    },
  });
  return { requests: reporting('requests'), leads: reporting('leads'), close: () => limits.close() };
}

export function createRateLimits(options: {
  redisUrl?: string;
  requestsPerMinute: number;
  leadsPerMinute: number;
}): RateLimits {
  const redis = options.redisUrl ? connectRedis(options.redisUrl) : undefined;
  return {
    requests: createRateLimiter({ name: 'requests', points: options.requestsPerMinute, windowSeconds: 60 }, redis),
    leads: createRateLimiter({ name: 'leads', points: options.leadsPerMinute, windowSeconds: 60 }, redis),
    async close() {
      redis?.disconnect();
    },
  };
}
