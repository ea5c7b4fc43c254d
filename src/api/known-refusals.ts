/**
 * A request this instance already knows it will refuse is held before any of the app's work, not
 * in the middle of it: a key it found unknown, an address whose keyless budget it refused (and no
 * key it knows valid), an organization whose spent budget it refused. Held in the middle, such a
 * request ran the access log, the security headers, the metrics and the routing on arrival, and
 * 2,000 connections arriving together with wrong keys kept the event loop busy (bench:abuse
 * scenario 12). Held first, an arrival costs
 * Node's parsing and a timer; the work runs when the hold ends, paced one payer at a time
 * (platform/rate-limit/refusal-pacer.ts), and answers exactly what it answered before: the same
 * chain runs, only later, and skips the hold it already had (`refusalHeldFirst`).
 *
 * A request whose key is being looked up for another request waits for that lookup first. What
 * it cannot know here (a key not yet looked up, a budget not yet refused) takes the usual path
 * and is held there. The access log's and the metrics' durations of a request held here start
 * when the hold ends.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { PresentedKey } from '../features/auth/api-keys';
import { presentedKeyOf, refusalHoldMs, type ApiServices } from './request-context';
import { restMatchOf } from './request-route';

/** The hold this request will have, when this instance already knows its refusal. */
function knownRefusalHoldMs(services: ApiServices, presented: PresentedKey | undefined, clientAddress: string): number {
  if (!services.refusalDelayMs) return 0;
  const addressRefused = services.rateLimits.anonymous.refusal(clientAddress);
  if (presented) {
    const principal = services.apiKeys.known(presented);
    if (principal) {
      // A known key is served from a refused address too; its organization's own budget decides.
      const spent = services.rateLimits.requests.refusal(principal.organizationId);
      return spent ? refusalHoldMs(services, principal.organizationId) : 0;
    }
    if (addressRefused || services.apiKeys.knownUnknown(presented)) return refusalHoldMs(services, clientAddress, addressRefused);
    return 0;
  }
  // Without a key, only a spent keyless budget is a refusal (introspection is open).
  return addressRefused ? refusalHoldMs(services, clientAddress, addressRefused) : 0;
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
      const ms = knownRefusalHoldMs(services, presentedKeyOf(req), req.ip ?? '');
      if (ms <= 0) return next();
      (res.locals as { refusalHeldFirst?: boolean }).refusalHeldFirst = true;
      setTimeout(() => {
        // A client gone while held is owed nothing: no work runs for it.
        if (!req.socket.destroyed) next();
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

/** Whether `holdKnownRefusalsFirst` held this request already (its refusal is not held again). */
export function refusalHeldFirst(res: Response): boolean {
  return (res.locals as { refusalHeldFirst?: boolean }).refusalHeldFirst === true;
}
