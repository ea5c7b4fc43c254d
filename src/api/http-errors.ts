import type { ErrorRequestHandler, RequestHandler } from 'express';
import { answeredDatabaseFailure, DATABASE_RETRY_AFTER_SECONDS } from '../platform/db/failures';
import { logger } from '../platform/logger';

/**
 * The last handlers: JSON everywhere (every response is JSON), body-parser errors
 * as their 4xx, the database being unreachable as 503 with Retry-After, anything unexpected as a
 * bare 500 whose details stay in the log under the request id.
 */
export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: 'Not Found' });
};

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  if (res.headersSent) return;
  if (status === 413) {
    res.status(413).json({ detail: 'Request body too large' });
    return;
  }
  if (status < 500) {
    res.status(status).json({ detail: error.expose && error.message ? error.message : 'Bad Request' });
    return;
  }
  // The request's own logger: its lines carry the request id.
  const log = req.log ?? logger;
  const databaseFailure = answeredDatabaseFailure(error, log);
  if (databaseFailure) {
    res.status(503).set('retry-after', String(DATABASE_RETRY_AFTER_SECONDS)).json({ detail: databaseFailure.message });
    return;
  }
  log.error({ err: error, path: req.path }, 'unhandled error');
  res.status(500).json({ detail: 'Internal Server Error' });
};
