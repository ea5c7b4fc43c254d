/**
 * The documented shape of every answer (api-behaviour.md "Errors (REST)", README "Behaviour"), as
 * checks that return what is wrong instead of throwing, so one failure report lists it all.
 *
 * - Never a 5xx (a database outage's 503 is not something a request can cause).
 * - Always JSON with content-type application/json, except the browser pages and their assets.
 * - REST errors: `{"detail": string}`; 422: `{"detail": [{type, loc, msg, input[, ctx]}]}` with
 *   `loc` starting at "query" / "path" / "body" / "header".
 * - GraphQL: `{"errors": [{message, extensions: {code}}]}`, never INTERNAL_SERVER_ERROR.
 */
import type { RawResponse } from './raw-http';

export type Interface = 'rest' | 'graphql' | 'page';

const LOCATIONS = new Set(['query', 'path', 'body', 'header']);
/** What browser pages and their assets may answer instead of JSON (only on a 2xx/3xx). */
const PAGE_TYPES = /^(text\/html|text\/css|application\/javascript|text\/javascript|image\/png)/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(kind: Interface, response: RawResponse, problems: string[]): unknown {
  const type = String(response.headers['content-type'] ?? '');
  // GraphQL over HTTP's own media type, when the client asks for it in Accept
  const json = kind === 'graphql' ? /^application\/(graphql-response\+)?json\b/ : /^application\/json\b/;
  if (!json.test(type)) problems.push(`content-type is "${type}", not application/json`);
  try {
    return JSON.parse(response.text);
  } catch {
    problems.push(`body is not JSON: ${JSON.stringify(response.text.slice(0, 200))}`);
    return undefined;
  }
}

function restErrorProblems(status: number, body: unknown): string[] {
  if (!isObject(body)) return [`error body is not an object`];
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'detail') return [`error body keys are [${keys.join(', ')}], not [detail]`];
  if (status !== 422) return typeof body.detail === 'string' ? [] : [`detail of a ${status} is not a string`];
  if (!Array.isArray(body.detail) || body.detail.length === 0) return ['422 detail is not a non-empty array'];
  return body.detail.flatMap((item: unknown, index) => {
    if (!isObject(item)) return [`422 detail[${index}] is not an object`];
    const problems: string[] = [];
    if (typeof item.type !== 'string') problems.push(`422 detail[${index}].type is not a string`);
    if (typeof item.msg !== 'string') problems.push(`422 detail[${index}].msg is not a string`);
    if (!('input' in item)) problems.push(`422 detail[${index}] has no input`);
    const loc = item.loc;
    if (!Array.isArray(loc) || loc.length === 0 || !loc.every((part) => typeof part === 'string' || Number.isInteger(part))) {
      problems.push(`422 detail[${index}].loc is not a non-empty array of strings and integers`);
    } else if (!LOCATIONS.has(loc[0] as string)) {
      problems.push(`422 detail[${index}].loc starts with ${JSON.stringify(loc[0])}`);
    }
    return problems;
  });
}

export function graphqlErrorProblems(body: unknown): string[] {
  if (!isObject(body)) return ['GraphQL body is not an object'];
  if (!('errors' in body)) return 'data' in body ? [] : ['GraphQL body has neither data nor errors'];
  if (!Array.isArray(body.errors) || body.errors.length === 0) return ['GraphQL errors is not a non-empty array'];
  return body.errors.flatMap((error: unknown, index) => {
    if (!isObject(error)) return [`errors[${index}] is not an object`];
    const problems: string[] = [];
    if (typeof error.message !== 'string') problems.push(`errors[${index}].message is not a string`);
    const code = isObject(error.extensions) ? error.extensions.code : undefined;
    if (typeof code !== 'string') problems.push(`errors[${index}].extensions.code is not a string`);
    if (code === 'INTERNAL_SERVER_ERROR') problems.push(`errors[${index}] is INTERNAL_SERVER_ERROR: ${String(error.message)}`);
    return problems;
  });
}

/** Everything wrong with one answer; `method` matters because a HEAD answer has no body. */
export function responseProblems(kind: Interface, method: string, response: RawResponse): string[] {
  const problems: string[] = [];
  const { status } = response;
  if (status >= 500) problems.push(`status ${status}`);
  if (method === 'HEAD' || status === 204 || status === 304) return problems;
  const type = String(response.headers['content-type'] ?? '');
  // Browser pages: Swagger UI and its assets, GraphiQL (GET /graphql asking for HTML).
  if (kind !== 'rest' && status < 400 && PAGE_TYPES.test(type)) return problems;
  const body = parseJson(kind, response, problems);
  if (body === undefined) return problems;
  if (kind === 'graphql') {
    problems.push(...graphqlErrorProblems(body));
    if (status !== 200 && !(isObject(body) && 'errors' in body)) problems.push(`GraphQL ${status} without errors`);
    return problems;
  }
  if (status === 307) {
    if (!response.headers.location) problems.push('307 without a location header');
    problems.push(...restErrorProblems(status, body));
  } else if (status >= 400) {
    problems.push(...restErrorProblems(status, body));
  }
  return problems;
}
