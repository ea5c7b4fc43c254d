/**
 * The rate limiter's decisions on the request's span: for each budget a request is charged
 * (`requests`: the statements its operation or route may run, i.e. its price; `leads`;
 * `anonymous`), the points asked, whether they were granted and, when refused, the wait. Never
 * the key (an organization or a client address). Applied only with tracing on (create-app.ts).
 */
import type { RateLimiter, RateLimits } from '../rate-limit/rate-limiter';
import { annotate } from './tracing';

export function annotatedRateLimits(limits: RateLimits): RateLimits {
  const annotated = (kind: 'requests' | 'leads' | 'anonymous'): RateLimiter => ({
    async consume(key, points) {
      const decision = await limits[kind].consume(key, points);
      annotate(() => ({
        [`vr.rate_limit.${kind}.points`]: points ?? 1,
        [`vr.rate_limit.${kind}.allowed`]: decision.allowed,
        ...(decision.allowed ? {} : { [`vr.rate_limit.${kind}.retry_after_s`]: decision.retryAfterSeconds }),
      }));
      return decision;
    },
    isExhausted: (key) => limits[kind].isExhausted(key),
    refusal: (key) => limits[kind].refusal(key),
  });
  return { requests: annotated('requests'), leads: annotated('leads'), anonymous: annotated('anonymous'), close: () => limits.close() };
}
