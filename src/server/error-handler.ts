import type { ErrorRequestHandler, RequestHandler } from 'express';
import { logger } from '../logger';

/**
 * The last handlers: JSON everywhere (decisions.md: every response is JSON), body-parser errors
 * as their 4xx, anything unexpected as a bare 500 whose details stay in the log under the
 * request id.
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
  logger.error({ err: error, requestId: res.getHeader('x-request-id'), path: req.path }, 'unhandled error');
  res.status(500).json({ detail: 'Internal Server Error' });
};
