/**
 * The server span of each HTTP request: continues the caller's trace when it sends a W3C
 * `traceparent`, is named by the matched route template (`GET /public/reports/{report_id}`),
 * and is the active span while the request is served, so the SQL, GraphQL and Redis spans and
 * every log line of the request belong to it. Installed only with tracing on (create-app.ts).
 *
 * Attributes follow OpenTelemetry's HTTP conventions, without what could name a person: the path
 * without its query string (search=, vin=), no client address, no header but the user agent.
 */
import type { ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { routeOf } from '../http/access-log';
import { tracer } from './tracing';

type WithLocals = ServerResponse & { locals?: Record<string, unknown> };

/** The request's server span (for the access line, written after the request's context has ended). */
export function requestSpanOf(res: ServerResponse): Span | undefined {
  return (res as WithLocals).locals?.span as Span | undefined;
}

/** Probes and scrapes come every few seconds and say nothing of a request: no span (nor an access line). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export const httpSpans = (): RequestHandler => (req, res, next) => {
  if (UNTRACED_PATHS.has(req.url)) return next();
  // Only a caller's `traceparent` is read (W3C Trace Context); without one, a new trace.
  const parent = req.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, req.headers);
  const route = routeOf(res);
  const span = tracer().startSpan(`${req.method} ${route}`, { kind: SpanKind.SERVER }, parent);
  res.locals.span = span;
  // An unsampled request's span records nothing and its end does nothing: no listener for it.
  if (span.isRecording()) {
    span.setAttributes({
      'http.request.method': req.method,
      'http.route': route,
      'url.path': (req.originalUrl ?? req.url ?? '').split('?')[0]!,
      'url.scheme': req.protocol,
      'network.protocol.version': req.httpVersion,
      ...(req.headers['user-agent'] ? { 'user_agent.original': req.headers['user-agent'].slice(0, 256) } : {}),
    });
    // `finish` and `close` may both come: an ended span records no more, so it ends once.
    const end = () => {
      if (!span.isRecording()) return;
      const aborted = !res.writableEnded;
      span.setAttribute('http.response.status_code', res.statusCode);
      if (aborted) span.setAttribute('vr.http.aborted', true);
      // Server errors only: a 4xx is the client's (OpenTelemetry's HTTP server convention).
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
  }
  context.with(trace.setSpan(parent, span), next);
};
