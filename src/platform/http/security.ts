/**
 * Security headers (helmet) on every response, and CORS for browser clients when configured.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's defaults, except the Content-Security-Policy: the API answers JSON, which never needs
 * to load or run anything, so the policy allows nothing and forbids framing.
 *
 * The two HTML pages (GraphiQL at GET /graphql, Swagger UI at /docs) set their own, stricter-fitting
 * policy (self-only scripts plus the hash of their one inline script) when they answer; it replaces
 * this one because they set the header after this middleware ran. Their other helmet headers stay.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    // Same intent as frame-ancestors for browsers that only know X-Frame-Options.
    frameguard: { action: 'deny' },
  });
}

/** Headers a browser client may send: the key, JSON bodies, its own request id, lead retries. */
export const CORS_ALLOWED_HEADERS = ['x-api-key', 'content-type', 'x-request-id', 'idempotency-key'];
/** Response headers a browser client may read: the request id, and the rate limit's. */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'];

/**
 * CORS, off unless origins are configured (`CORS_ORIGINS`). Mounted before authentication and rate
 * limiting: a preflight (OPTIONS) carries no API key, and is answered here (204) without counting
 * against any budget. No credentials: the API key travels in a header, never in a cookie.
 */
export function corsPolicy(origins: string[] | '*'): RequestHandler | undefined {
  if (origins !== '*' && origins.length === 0) return undefined;
  return cors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'POST'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // Browsers cap this (Chromium at 2 h); 10 min keeps a changed policy from lingering.
    maxAge: 600,
  });
}
