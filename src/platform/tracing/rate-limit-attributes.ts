/**
 * The rate limiter's decisions on the request's span: for each budget a request is charged
 * (`requests`: the statements its operation or route may run, i.e. its price; `leads`;
 * `anonymous`), the points asked, whether they were granted and, when refused, the wait. Never
 * the key (an organization or a client address). Applied only with tracing on (create-app.ts).
 */
import { wrappedConsumes, type RateLimits } from '../rate-limit/rate-limiter';
import { recordingSpan } from './tracing';

export function annotatedRateLimits(limits: RateLimits): RateLimits {
  return wrappedConsumes(limits, (kind, consume) => {
    const points = `vr.rate_limit.${kind}.points`;
    const allowed = `vr.rate_limit.${kind}.allowed`;
    const retryAfter = `vr.rate_limit.${kind}.retry_after_s`;
    // The span is known when the decision is asked for: an unsampled request gets the limiter's
    // own promise, with no step added to its path.
    return (key, asked) => {
      const span = recordingSpan();
      const deciding = consume(key, asked);
      if (!span) return deciding;
      return deciding.then((decision) => {
        span.setAttribute(points, asked ?? 1);
        span.setAttribute(allowed, decision.allowed);
        if (!decision.allowed) span.setAttribute(retryAfter, decision.retryAfterSeconds);
        return decision;
      });
    };
  });
}
