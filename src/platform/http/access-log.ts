/**
 * Request id and access log for every request: the id comes from `x-request-id` when the caller
 * sends a sane one, else is made here; it is returned in the response header and in every log
 * line. The log names the route template, never the API key, query values or bodies.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { logger } from '../logger';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  const id = Array.isArray(given) ? given[0] : given;
  return id && SANE_REQUEST_ID.test(id) ? id : randomUUID();
}

export const UNMATCHED_ROUTE = 'unmatched';

type WithLocals = ServerResponse & { locals?: Record<string, unknown> };

/**
 * Names the route a request is served by, as a template (`/public/reports/{report_id}`), for the
 * access log and the metrics. The application matches each request once, before this log starts
 * (api/request-route.ts), and records what it matched here.
 */
export function recordRoute(res: ServerResponse, template: string): void {
  (res as WithLocals).locals!.route = template;
}

/** The recorded route template, or `unmatched`: ids never appear, so the set stays bounded. */
export function routeOf(res: ServerResponse | undefined): string {
  const route = (res as WithLocals | undefined)?.locals?.route;
  return typeof route === 'string' ? route : UNMATCHED_ROUTE;
}

/**
 * Names the organization whose key made the request, for the access log line (the key itself is
 * never logged). Called by both interfaces once the key is known.
 */
export function recordOrganization(res: ServerResponse, organizationId: string | null): void {
  if (organizationId) (res as WithLocals).locals!.organizationId = organizationId;
}

/** The access log line's fields, with the organization whose key made the request (when one did). */
function withOrganization(res: ServerResponse, fields: object): object {
  const organizationId = (res as WithLocals).locals?.organizationId;
  return organizationId ? { ...fields, organization_id: organizationId } : fields;
}

/** pino-http's own error for a 5xx without one: a stack of its internals, not ours. */
const isSyntheticError = (res: ServerResponse, error: Error) => error.message === `failed with status code ${res.statusCode}`;

export const accessLog = () =>
  pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdOf(req);
      res.setHeader('x-request-id', id);
      return id;
    },
    // The serializers read the request and response themselves: pino-std-serializers' wrappers
    // would first copy every header of both (and parse the query string) into objects these drop.
    wrapSerializers: false,
    // The URL's query string may carry personal data (search=, vin=): log the path only.
    serializers: {
      // Express's request, whose response holds the recorded route; `originalUrl` before any router rewrites `url`.
      req: (req: IncomingMessage & { id: string; originalUrl?: string; res?: ServerResponse }) => {
        const path = (req.originalUrl ?? req.url ?? '').split('?')[0]!;
        return { id: req.id, method: req.method, route: routeOf(req.res), path };
      },
      res: (res: ServerResponse) => ({ status: res.statusCode }),
    },
    // A 503 is a deliberate answer (database away, deadline passed) whose cause is logged where it is
    // decided: a warning here, not an error with a stack.
    customLogLevel: (_req, res, error) => {
      if (error && !isSyntheticError(res, error)) return 'error';
      if (res.statusCode === 503) return 'warn';
      return res.statusCode >= 500 ? 'error' : 'info';
    },
    // The organization goes into the line itself, not through `customProps`: pino-http makes a
    // child logger of those (its bindings serialized) when the request starts and again when it
    // ends, whether or not the line is written.
    customSuccessObject: (_req, res, fields) => withOrganization(res, fields),
    customErrorObject: (_req, res, error, fields) => {
      if (!isSyntheticError(res, error)) return withOrganization(res, fields);
      const { err: _synthetic, ...rest } = fields as Record<string, unknown>;
      return withOrganization(res, rest);
    },
    // Probes and scrapes come every few seconds: they would drown the log.
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
  });
