/**
 * The one writer of REST error answers: the service's errors as the FastAPI service answered them,
 * status from the error's code, body `{"detail": ...}`, 422 items with `loc` prefixed by where the
 * argument came from. Everything on a REST path that refuses a request answers through here: the
 * front layer (rest-router.ts), the last express handlers (http-errors.ts) and the platform's own
 * refusals (too long a query string, too late, too large: wired in app/create-app.ts).
 */
import type { Response } from 'express';
import type { PlatformRefusal, RefusalAnswer } from '../../platform/http/refusals';
import type { Logger } from '../../platform/logger';
import { endWithText } from '../../platform/http/text-body';
import {
  AppError,
  asAppError,
  badRequest,
  credentialRequired,
  deadlinePassed,
  headersTooLarge,
  internalError,
  payloadTooLarge,
  requestTimeout,
  serviceUnavailable,
  uriTooLong,
} from '../../shared/errors';
import type { Location } from '../contract/pydantic-errors';

export interface RestErrorAnswer {
  status: number;
  headers: Record<string, string>;
  /** the JSON body, serialized */
  body: string;
}

/** Where an argument is read from, to place a failing argument's item: `['order_by']` → `['query', 'order_by']`. */
export type LocationOf = (argument: string) => Location;

const inQuery: LocationOf = () => 'query';
const JSON_CONTENT_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** The answer to `error` on a REST path. */
export function restErrorAnswer(error: AppError, locationOf: LocationOf = inQuery): RestErrorAnswer {
  const headers: Record<string, string> = { ...JSON_CONTENT_TYPE };
  if (error.details.credentialsMissing) headers['www-authenticate'] = error.details.challenge ?? 'APIKey';
  if (error.details.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.details.retryAfterSeconds);
  if (error.details.allow !== undefined) headers.allow = error.details.allow;
  if (error.details.closeConnection) headers.connection = 'close';
  if (error.code === 'BAD_USER_INPUT') {
    const items = (error.details.inputErrors ?? []).map((item) =>
      typeof item.loc[0] === 'string' && !LOCATIONS.has(item.loc[0]) ? { ...item, loc: [locationOf(item.loc[0]), ...item.loc] } : item,
    );
    return { status: 422, headers, body: JSON.stringify({ detail: items }) };
  }
  return { status: error.status, headers, body: JSON.stringify({ detail: error.message }) };
}

const LOCATIONS = new Set<string>(['query', 'path', 'body', 'header']);

/**
 * Writes `error`'s answer (headers set before, such as RateLimit's, stay). Written as it is: an
 * error carries no ETag (express's `send` would hash every body for one).
 */
export function sendRestError(res: Response, error: AppError, locationOf?: LocationOf): void {
  const answer = restErrorAnswer(error, locationOf);
  sendJson(res, answer.status, answer.body, answer.headers);
}

/** A JSON answer, written as it is (headers set before stay). */
export function sendJson(res: Response, status: number, body: string, headers: Record<string, string> = JSON_CONTENT_TYPE): void {
  endWithText(res.status(status).set(headers), body);
}

/**
 * Any failure as the error to answer: the service's own, the database away (503), or a bug,
 * logged here with the request's id and answered as a bare 500.
 */
export function restErrorOfFailure(failure: unknown, log: Logger): AppError {
  const error = asAppError(failure, log);
  if (error) return error;
  log.error({ err: failure }, 'unexpected error on a REST path');
  return internalError();
}

/** The platform's refusals (platform/http/refusals.ts) as the service's errors. */
function appErrorOfRefusal(refusal: PlatformRefusal): AppError {
  switch (refusal.kind) {
    case 'query-too-long':
      return uriTooLong(`Query string too long (more than ${refusal.maxBytes} bytes)`);
    case 'headers-too-large':
      return headersTooLarge(`Request headers too large (more than ${refusal.maxBytes} bytes)`);
    case 'not-received-in-time':
      return requestTimeout('Request not received in time');
    case 'deadline-passed':
      return deadlinePassed();
    case 'chunk-extensions-too-large':
      return payloadTooLarge('Chunk extensions too large', true);
    case 'malformed':
      return badRequest('Malformed HTTP request');
    case 'body-dropped':
      return serviceUnavailable('The request waited and its body was not kept: send it again', 1);
    case 'scrape-not-authorized':
      return credentialRequired(refusal.challenge);
  }
}

/** What the platform answers its own refusals with (given to it by app/create-app.ts). */
export function answerRefusal(refusal: PlatformRefusal): RefusalAnswer {
  return restErrorAnswer(appErrorOfRefusal(refusal));
}
