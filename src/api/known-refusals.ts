/**
 * A request this instance already knows it will refuse is held before any of the app's work, not
 * in the middle of it: a key it found unknown, an address whose keyless budget it refused (and no
 * key it knows valid), an organization whose spent budget it refused. Held in the middle, such a
 * request ran the access log, the security headers, the metrics and the routing on arrival, and
 * 2,000 connections arriving together with wrong keys kept the event loop busy (bench:abuse
 * scenario 12). Held first, an arrival costs Node's parsing and a timer; the work runs when the
 * hold ends, paced one payer at a time (platform/rate-limit/refusal-pacer.ts), and answers what it
 * answered before: the same chain runs, only later, and skips the hold it already had
 * (`refusalHeldFirst`). A body too long for any refusal to read is dropped during the hold, and a
 * request its hold's end no longer refuses is then told to send it again (`answerHeldWithoutBody`).
 *
 * A request whose key is being looked up for another request waits for that lookup first. What
 * it cannot know here (a key not yet looked up, a budget not yet refused) takes the usual path
 * and is held there. The access log's and the metrics' durations of a request held here start
 * when the hold ends.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { PresentedKey } from '../features/auth/api-keys';
import { sendRefusal, type AnswerRefusal } from '../platform/http/refusals';
import { closeIfBodyUnread, declaresBodyOver } from '../platform/http/unread-bodies';
import type { RateLimitDecision } from '../platform/rate-limit/rate-limiter';
import { KEYLESS_MAX_BODY_BYTES } from './limits';
import { presentedKeyOf, refusalHoldMs, type ApiServices } from './request-context';
import { restMatchOf } from './request-route';

/** Who pays for this request's refusal, when this instance already knows it will refuse it. */
function knownRefusal(
  services: ApiServices,
  presented: PresentedKey | undefined,
  clientAddress: string,
): { payer: string; decision?: RateLimitDecision } | undefined {
  const addressRefused = services.rateLimits.anonymous.refusal(clientAddress);
  if (presented) {
    const principal = services.apiKeys.known(presented);
    if (principal) {
      // A known key is served from a refused address too; its organization's own budget decides.
      return services.rateLimits.requests.refusal(principal.organizationId) ? { payer: principal.organizationId } : undefined;
    }
    if (addressRefused || services.apiKeys.knownUnknown(presented)) return { payer: clientAddress, decision: addressRefused };
    return undefined;
  }
  // Without a key, only a spent keyless budget is a refusal (introspection is open).
  return addressRefused ? { payer: clientAddress, decision: addressRefused } : undefined;
}

/** Requests that authenticate: a REST route (matched first, api/request-route.ts) or a GraphQL operation (not GraphiQL's page, not a CORS preflight). */
function authenticates(req: Request, res: Response): boolean {
  if (req.path === '/graphql' || req.path === '/graphql/')
    return req.method === 'POST' || (req.method === 'GET' && req.query.query !== undefined);
  return restMatchOf(res)?.kind === 'route';
}

export function holdKnownRefusalsFirst(services: ApiServices): RequestHandler {
  return (req, res, next) => {
    if (!authenticates(req, res)) return next();
    const decide = () => {
      const refusal = services.refusalDelayMs ? knownRefusal(services, presentedKeyOf(req), req.ip ?? '') : undefined;
      const ms = refusal ? refusalHoldMs(services, refusal.payer, refusal.decision) : 0;
      if (ms <= 0) return next();
      const locals = res.locals as HeldLocals;
      locals.refusalHeldFirst = true;
      // A refusal never reads a body this long: what of it arrives during the hold is read and
      // dropped, not kept, so that a flood of held connections holds none of their bodies.
      const dropsBody = declaresBodyOver(req, KEYLESS_MAX_BODY_BYTES);
      if (dropsBody) req.resume();
      setTimeout(() => {
        // A client gone while held is owed nothing: no work runs for it.
        if (req.socket.destroyed) return;
        // No longer refused (its budget renewed during the hold): its body is gone (answerHeldWithoutBody).
        if (dropsBody && !knownRefusal(services, presentedKeyOf(req), req.ip ?? '')) locals.bodyDropped = true;
        next();
      }, ms);
    };
    // The same key already being looked up (a client's connections arriving together): its
    // answer is known once that lookup ends, so the request waits for it before any work.
    const presented = presentedKeyOf(req);
    const underWay = presented && services.apiKeys.lookupUnderWay(presented);
    if (underWay) void underWay.then(decide, decide);
    else decide();
  };
}

interface HeldLocals {
  refusalHeldFirst?: boolean;
  /** its body was dropped during the hold, and it is no longer refused */
  bodyDropped?: boolean;
}

/** Whether `holdKnownRefusalsFirst` held this request already (its refusal is not held again). */
export function refusalHeldFirst(res: Response): boolean {
  return (res.locals as HeldLocals).refusalHeldFirst === true;
}

/**
 * A request whose body was dropped while it was held, and that its hold's end finds no longer
 * refused (a budget renewed meanwhile): nothing was done, and it is told so, to send it again
 * (503 with Retry-After). After the access log and the metrics, which count it like any answer.
 */
export function answerHeldWithoutBody(answer: AnswerRefusal): RequestHandler {
  return (req, res, next) => {
    if (!(res.locals as HeldLocals).bodyDropped) return next();
    closeIfBodyUnread(req, res);
    sendRefusal(res, answer({ kind: 'body-dropped' }));
  };
}
