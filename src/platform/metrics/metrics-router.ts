/**
 * `GET /metrics` for the operator's Prometheus (no API key: it is not part of the public API,
 * optionally behind a bearer token), and the timing of every other request.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Registry } from 'prom-client';
import { routeOf } from '../http/access-log';
import { sendRefusal, type AnswerRefusal } from '../http/refusals';
import type { AppMetrics } from './metrics';
import { processMetricsRegistry } from './process-metrics';

const METRICS_PATH = '/metrics';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Compares digests, so neither the token's content nor its length leaks through timing. */
function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export interface MetricsOptions {
  /** When set, scrapes need `Authorization: Bearer <token>`. */
  token?: string;
  /** How the application words a refused scrape (refusals.ts). */
  answerRefusal: AnswerRefusal;
  /** Serve GET /metrics on this app (false: it only times requests; another server serves the endpoint). */
  serveEndpoint?: boolean;
}

/**
 * GET (or HEAD) /metrics, exactly (case-sensitive, no trailing slash: what a proxy rule blocks is
 * what this serves). A handler rather than a router of its own: every request of the app passes
 * it, and a router costs each one its own walk.
 */
export function metricsEndpoint(metrics: AppMetrics, token: string | undefined, answer: AnswerRefusal): RequestHandler {
  const serve: RequestHandler = async (req, res) => {
    if (token !== undefined) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (given === undefined || !sameToken(given, token)) {
        sendRefusal(res, answer({ kind: 'scrape-not-authorized', challenge: 'Bearer realm="metrics"' }));
        return;
      }
    }
    const registry = Registry.merge([processMetricsRegistry(), metrics.registry]);
    res
      .set('cache-control', 'no-store')
      .type(registry.contentType)
      .send(await registry.metrics());
  };
  return (req, res, next) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.path === METRICS_PATH) return serve(req, res, next);
    next();
  };
}

/** Mount once per app, early: requests are timed from here on. */
export function metricsHandlers(metrics: AppMetrics, options: MetricsOptions): RequestHandler[] {
  // After the endpoint: scrapes are not timed; everything else is, to the last byte (or the client hanging up).
  const timing: RequestHandler = (req, res, next) => {
    const method = KNOWN_METHODS.has(req.method) ? req.method : 'other';
    const stop = metrics.httpRequestDuration.startTimer();
    res.once('close', () => {
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      // The route the application matched for this request (api/request-route.ts), not matched again.
      stop({ method, route: routeOf(res), status_code: status });
    });
    next();
  };
  return options.serveEndpoint === false ? [timing] : [metricsEndpoint(metrics, options.token, options.answerRefusal), timing];
}
