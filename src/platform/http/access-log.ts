/**
 * Request id and access log for every request: the id comes from `x-request-id` when the caller
 * sends a sane one, else is made here; it is returned in the response header and in every log
 * line. The log names the route template, never the API key, query values or bodies.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { accessLogger, logger, type Logger } from '../logger';
import { traceIdOfHeader } from '../tracing/tracing';

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

/** The access line's `req`: the route template and the path without its query string (which may carry personal data: search=, vin=). */
function requestFields(req: LoggedRequest, res: ServerResponse) {
  // `originalUrl` (express) before any router rewrites `url`.
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0]!;
  return { id: req.id, method: req.method, route: routeOf(res), path };
}

type LoggedRequest = IncomingMessage & { id?: string; originalUrl?: string; res?: ServerResponse };

const requestLoggers = new WeakMap<IncomingMessage, Logger>();

/**
 * The request's own logger: its lines carry the request (id, route, path). Made when a line first
 * needs it (most requests write none but the access line), not as each request starts: a child
 * logger serializes its bindings when it is made.
 */
export function requestLogger(req: IncomingMessage): Logger {
  let child = requestLoggers.get(req);
  if (!child) requestLoggers.set(req, (child = requestLoggerMaker(req)()));
  return child;
}

/**
 * What makes the request's logger when a line first needs it, holding the request's fields rather
 * than the request. For a request context: Apollo keeps an operation's context reachable after its
 * request, until V8's next full collection (its gateway request context), and a context holding the
 * request would keep the request, its body and its answer with it, copied into the old generation.
 */
export function requestLoggerMaker(req: IncomingMessage): () => Logger {
  const request = req as LoggedRequest;
  if (!request.res) return () => logger;
  const fields = requestFields(request, request.res);
  return () => logger.child({ req: fields });
}

/**
 * The request's trace: its server span's ids with tracing on (tracing/http-spans.ts; the line is
 * written after the request's context has ended, so pino's mixin cannot find them); with tracing
 * off, the trace id of a caller's `traceparent`, so the line can still be found from the caller's trace.
 */
function traceFields(req: IncomingMessage, res: ServerResponse, fields: Record<string, unknown>): void {
  const span = (res as WithLocals).locals?.span as Span | undefined;
  if (span) {
    const { traceId, spanId } = span.spanContext();
    fields.trace_id = traceId;
    fields.span_id = spanId;
    return;
  }
  const traceId = traceIdOfHeader(req.headers.traceparent);
  if (traceId) fields.trace_id = traceId;
}

/** Probes and scrapes come every few seconds: they would drown the log. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One JSON line per request when its response ends (or its connection closes first), at `info`;
 * `warn` for a 503 (a deliberate answer, database away or deadline passed, whose cause is logged
 * where it is decided); `error` for another 5xx or a response that failed.
 *
 * Written here rather than with pino-http, which this replaced: per request it made two child
 * loggers (serializing the request into their bindings whether or not a line would use them),
 * kept arrays of them on the request and response, and added and removed three listeners: its own
 * code was 2.6 % of a one-report request's CPU, logging 4.5 % in all (bench/HISTORY.md,
 * 2026-11-28, 09:50). A logging library is still what writes the line (pino); what is ours is
 * when, at which level and with which fields. The line's shape is
 * pino-http's (`req`, `res`, `responseTime`, its messages), so collectors see no change.
 */
export const accessLog = (): RequestHandler => (req, res, next) => {
  const request = req as LoggedRequest;
  const id = requestIdOf(req);
  res.setHeader('x-request-id', id);
  request.id = id;
  const started = Date.now();
  let logged = false;
  const writeLine = (error?: unknown) => {
    if (logged) return;
    logged = true;
    const fields: Record<string, unknown> = {
      req: requestFields(request, res),
      res: { status: res.statusCode },
      responseTime: Date.now() - started,
    };
    const organizationId = (res as WithLocals).locals?.organizationId;
    if (organizationId) fields.organization_id = organizationId;
    traceFields(req, res, fields);
    if (error) {
      fields.err = error;
      logger.error(fields, 'request errored');
    } else if (res.statusCode >= 500) {
      logger[res.statusCode === 503 ? 'warn' : 'error'](fields, 'request errored');
    } else {
      accessLogger.info(fields, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
    }
  };
  // An 'error' on the response is logged, and with a listener it cannot take the process down.
  res.on('error', writeLine);
  if (!UNLOGGED_PATHS.has(req.url)) {
    res.on('finish', () => writeLine());
    res.on('close', () => writeLine());
  }
  next();
};
