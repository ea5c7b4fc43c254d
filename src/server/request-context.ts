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

export const accessLog = pinoHttp({
  logger,
  genReqId: (req: IncomingMessage, res: ServerResponse) => {
    const id = requestIdOf(req);
    res.setHeader('x-request-id', id);
    return id;
  },
  // The URL's query string may carry personal data (search=, vin=): log the path only.
  serializers: {
    req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
    res: (res: { statusCode: number }) => ({ status: res.statusCode }),
  },
  customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
});
