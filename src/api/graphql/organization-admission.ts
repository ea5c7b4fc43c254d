/**
 * Between authentication and Apollo: an authenticated request waits for one of its
 * organization's slots (request-context.ts, admitOrganization) before Apollo parses, validates or
 * prices its document, and holds the slot until Apollo has answered. Keyless introspection
 * shares one set of slots, as one organization would (and is throttled per client address by the gate).
 */
import type { RequestHandler } from 'express';
import type { ApiKeyPrincipal } from '../../features/auth/api-keys';
import { refusalHeldFirst } from '../known-refusals';
import { admitOrganization, clientGoneSignal, type ApiServices } from '../request-context';
import { sendGraphqlError } from './format-error';

export function withOrganizationSlot(services: ApiServices, handler: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    const principal = res.locals.principal as ApiKeyPrincipal | null;
    const admission = await admitOrganization(services, principal, clientGoneSignal(res), refusalHeldFirst(res));
    if (!admission.admitted) {
      res.set(admission.headers);
      return admission.error && sendGraphqlError(res, admission.error);
    }
    try {
      // Apollo's express middleware settles once the response is sent.
      await handler(req, res, next);
    } finally {
      admission.release();
    }
  };
}
