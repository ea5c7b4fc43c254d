/**
 * The last handlers: a path nobody serves, and whatever a handler passed on (body-parser's 4xx,
 * the database being away, a bug). Their answers are the REST interface's (every response of the
 * service is JSON with a `detail`), written by its one error writer.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { requestLogger } from '../platform/http/access-log';
import { AppError, badRequest, notFound, payloadTooLarge, unsupportedMediaType } from '../shared/errors';
import { restErrorOfFailure, sendRestError } from './rest/rest-errors';

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendRestError(res, notFound('Not Found'));
};

/** body-parser's errors carry the status they mean; only the 4xx are the client's. */
function clientErrorOf(error: { status?: unknown; expose?: unknown; message?: unknown } | undefined): AppError | undefined {
  const status = error?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return payloadTooLarge('Request body too large');
  const message = error?.expose && typeof error.message === 'string' && error.message ? error.message : undefined;
  if (status === 415) return unsupportedMediaType(message ?? 'Unsupported Media Type');
  return badRequest(message ?? 'Bad Request');
}

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) return;
  // The request's own logger: its lines carry the request id.
  sendRestError(res, clientErrorOf(error) ?? restErrorOfFailure(error, requestLogger(req)));
};
