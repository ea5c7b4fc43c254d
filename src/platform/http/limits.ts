/**
 * Request limits that express does not give: a query string size, and a deadline for the answer.
 * (Header size and the time to receive a request are the HTTP server's: see http-server.ts. The
 * body limit, 100 kB, is on each body parser and answered as 413 by the error handler.) Their
 * answers are the application's (`answer`): see refusals.ts.
 */
import type { RequestHandler } from 'express';
import { logger } from '../logger';
import { sendRefusal, type AnswerRefusal } from './refusals';

/** Longer query strings get 414: no filter of this API needs more, and each value is parsed. */
export const MAX_QUERY_STRING_BYTES = 8 * 1024;

export function queryStringLimit(answer: AnswerRefusal, maxBytes: number = MAX_QUERY_STRING_BYTES): RequestHandler {
  return (req, res, next) => {
    const start = req.url.indexOf('?');
    // The URL as received is ASCII (percent-encoded), so its length is its size in bytes.
    if (start >= 0 && req.url.length - start - 1 > maxBytes) {
      sendRefusal(res, answer({ kind: 'query-too-long', maxBytes }));
      return;
    }
    next();
  };
}

/**
 * A request still unanswered after `timeoutMs` gets 503 at once, whatever it waits on (or 408 if
 * the client itself has not finished sending it: Node's request timeout, same length, would say
 * so too). The work itself is not interrupted (the database's statement_timeout stops the SQL);
 * whatever it tries to send later is dropped, since the response is already complete. The
 * connection is in an unknown state (part of a body may still come): the answer closes it.
 */
export function requestDeadline(timeoutMs: number, answer: AnswerRefusal): RequestHandler {
  return (req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      const stillReceiving = !req.complete;
      logger.warn({ requestId: res.getHeader('x-request-id'), path: req.path, timeoutMs, stillReceiving }, 'request deadline passed');
      sendRefusal(res, answer({ kind: stillReceiving ? 'not-received-in-time' : 'deadline-passed' }));
    }, timeoutMs);
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}
