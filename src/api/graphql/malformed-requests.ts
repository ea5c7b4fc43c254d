/**
 * Malformed GraphQL requests answered as GraphQL errors ({"errors": [{message, extensions:
 * {code}}]}) with a 4xx, where they used to surface as a 500 or as the REST error body. Found by
 * test/fuzz.
 */
import type { ErrorRequestHandler } from 'express';
import { badRequest } from '../../shared/errors';
import { sendGraphqlError } from './format-error';

/**
 * body-parser's refusals on /graphql (malformed JSON, too large, unsupported charset) in the
 * GraphQL error shape, with their own 4xx status; anything else goes on to the app's handler.
 */
export const graphqlBodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const status = typeof error?.status === 'number' ? error.status : 500;
  if (status < 400 || status >= 500 || res.headersSent) return next(error);
  const message = status === 413 ? 'Request body too large' : error.expose && error.message ? String(error.message) : 'Bad Request';
  sendGraphqlError(res, badRequest(message), status);
};
