/**
 * The refusals only the HTTP layer makes, before any interface has seen the request: a query
 * string or headers too large, a request too slow to arrive or to answer, a request Node cannot
 * parse. The platform says which one it is; the application words the answer (its interfaces'
 * one error writer, wired in app/create-app.ts), so these answers look like every other error.
 */
import type { Response } from 'express';
import { endWithText } from './text-body';

export type PlatformRefusal =
  | { kind: 'query-too-long'; maxBytes: number }
  | { kind: 'headers-too-large'; maxBytes: number }
  | { kind: 'not-received-in-time' }
  | { kind: 'deadline-passed' }
  | { kind: 'chunk-extensions-too-large' }
  | { kind: 'malformed' }
  /** held for a refusal its hold's end no longer finds, its body dropped meanwhile: to be sent again */
  | { kind: 'body-dropped' }
  /** GET /metrics without the operator's bearer token (METRICS_TOKEN) */
  | { kind: 'scrape-not-authorized'; challenge: string };

export interface RefusalAnswer {
  status: number;
  headers: Record<string, string>;
  /** serialized */
  body: string;
}

export type AnswerRefusal = (refusal: PlatformRefusal) => RefusalAnswer;

/** Sends the application's answer to a refusal (the platform decides only that it is one). */
export function sendRefusal(res: Response, answer: RefusalAnswer): void {
  endWithText(res.status(answer.status).set(answer.headers), answer.body);
}
