/**
 * The /public REST interface. This front layer gives FastAPI's behaviour, once per request: the
 * route matched (307 to the other slash form, JSON 404 and 405), the body read (malformed JSON is a
 * 422 even without a key, as FastAPI reads it first), the key checked (401), the organization's
 * budget charged (429), every argument validated in one pass (422, all failures at once). Then
 * sofa-api runs the route's GraphQL operation (sofa-adapter.ts).
 */
import { unescape } from 'node:querystring';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLArgument, GraphQLSchema } from 'graphql';
import { recordOrganization } from '../../platform/http/access-log';
import { logger } from '../../platform/logger';
import { invalidApiKey, notAuthenticated, rateLimited, type AppError } from '../../shared/errors';
import { IDEMPOTENCY_KEY_ARGUMENT, IDEMPOTENCY_KEY_PARAMETER } from '../contract/idempotency-key';
import { parseJsonBody, validateArguments, type Location, type PydanticErrorItem } from '../contract/validation';
import { decodeJsonBytes, isJsonContentType } from '../contract/validation/request-body';
import { declaredStatements } from '../graphql/operation-cost';
import { MAX_BODY_BYTES } from '../limits';
import type { ApiKeyPrincipal } from '../../features/auth/api-keys';
import {
  admitOrganization,
  authenticate,
  chargeRequest,
  clientGoneSignal,
  createRequestContext,
  type ApiServices,
} from '../request-context';
import { entityTagger, notModified, type EntityTagger } from './conditional-requests';
import { restErrorOf } from './rest-errors';
import { restDocumentFor, rootFieldOf } from './rest-documents';
import { locationOf, matchRoutes, REST_BASE_PATH, REST_ROUTES, type RestRoute } from './routes';
import { sofaRouter, type RequestWithExecution } from './sofa-adapter';

/** Everything about a route that does not change between requests, worked out once. */
interface PreparedRoute {
  route: RestRoute;
  document: ReturnType<typeof restDocumentFor>;
  /** the GraphQL arguments, plus the header parameters the route reads itself (Idempotency-Key) */
  parameters: readonly GraphQLArgument[];
  /** the SQL statements the route's operation may run: what it costs in the rate limit */
  statements: number;
  locationOf: (argument: string) => Location;
  /** fetch-one routes: the ETag of an answer, read before it is built */
  tagger?: EntityTagger;
}

function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).type('application/json').send(JSON.stringify(body));
}

function sendError(res: Response, error: AppError, prepared?: PreparedRoute): void {
  const { status, body, headers } = restErrorOf(error, prepared?.locationOf ?? (() => 'query'));
  sendJson(res, status, body, headers);
}

function unprocessable(res: Response, detail: PydanticErrorItem[]): void {
  sendJson(res, 422, { detail });
}

/** The route for this method, or the reason there is none (404, 405, or a 307 to the other slash form). */
function resolveRoute(req: Request, path: string): { route: RestRoute } | { redirect: string } | { status: 404 | 405; allow?: string } {
  const candidates = matchRoutes(path);
  if (candidates.length === 0) {
    // Starlette's redirect_slashes: strip every trailing slash, or add one.
    const toggled = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
    if (matchRoutes(toggled).length > 0) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      // The path was decoded: anything outside printable ASCII (a U+FFFD from bad UTF-8, a space)
      // is escaped again, or it could not travel in a header (Node refuses it: a 500).
      const location = toggled.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
      return { redirect: `${location}${query}` };
    }
    return { status: 404 };
  }
  const route = candidates.find((r) => r.method === req.method);
  if (!route) return { status: 405, allow: [...new Set(candidates.map((r) => r.method))].join(', ') };
  return { route };
}

function prepare(schema: GraphQLSchema, route: RestRoute): PreparedRoute {
  const document = restDocumentFor(schema, route);
  const operation = document.definitions[0]!;
  if (operation.kind !== 'OperationDefinition') throw new Error(`REST route ${route.path}: no operation`);
  // Statements do not depend on argument values: price the document once.
  const statements = Math.max(1, declaredStatements(schema, document));
  const args = rootFieldOf(schema, route).args;
  const headers = route.field === 'Mutation.createLead' ? [IDEMPOTENCY_KEY_PARAMETER] : [];
  return {
    route,
    document,
    parameters: [...args, ...headers],
    statements,
    locationOf: (argument) => (argument === IDEMPOTENCY_KEY_ARGUMENT ? 'header' : locationOf(route, argument)),
    tagger: entityTagger(route.field, document),
  };
}

/** Starlette's answer to a body it cannot read. */
const BODY_PARSE_ERROR = 'There was an error parsing the body';

export function restRouter(schema: GraphQLSchema, services: ApiServices): express.Router {
  const prepared = new Map(REST_ROUTES.map((route) => [route, prepare(schema, route)]));
  const sofa = sofaRouter(schema);
  const readBody = bodyReader();

  const front = async (req: Request, res: Response, next: NextFunction) => {
    // Decoded before the prefix is looked at too: Starlette routes `/%70ublic/reports/` as `/public/reports/`.
    const path = decodedPath(req);
    if (path !== REST_BASE_PATH && !path.startsWith(`${REST_BASE_PATH}/`)) return next();
    const resolved = resolveRoute(req, path);
    // Every response is JSON, the redirect included (express's res.redirect answers text/plain).
    if ('redirect' in resolved) return sendJson(res, 307, { detail: 'Temporary Redirect' }, { location: resolved.redirect });
    if ('status' in resolved) {
      if (resolved.allow) res.set('allow', resolved.allow);
      return sendJson(res, resolved.status, { detail: resolved.status === 404 ? 'Not Found' : 'Method Not Allowed' });
    }
    const route = prepared.get(resolved.route)!;

    // The key before the body: without a valid key, at most KEYLESS_MAX_BODY_BYTES of it are read.
    const auth = await authenticate(services, req.headers['x-api-key'], req.ip ?? '');
    const refusal =
      auth.status === 'throttled'
        ? rateLimited(auth.decision.retryAfterSeconds)
        : auth.status === 'missing'
          ? notAuthenticated()
          : auth.status === 'invalid'
            ? invalidApiKey()
            : undefined;
    if (auth.status === 'throttled') res.set(auth.decision.headers);

    // FastAPI reads the body before anything else: malformed JSON is a 422 even without a key.
    // Only a declared JSON body is parsed; any other reaches validation as text, as in FastAPI.
    let body: unknown;
    if (route.route.method === 'POST') {
      const read = await readBody(req, res, refusal ? KEYLESS_MAX_BODY_BYTES : MAX_BODY_BYTES);
      if (!Buffer.isBuffer(read) && refusal) {
        // Not worth reading for a request that will be refused: its answer, and the connection closes.
        res.set('connection', 'close');
        return sendError(res, refusal);
      }
      if (!Buffer.isBuffer(read)) return next(read.tooLarge);
      const bytes = read;
      if (bytes.length > 0 && isJsonContentType(req.headers['content-type'])) {
        const text = decodeJsonBytes(bytes);
        if (text === undefined) return sendJson(res, 400, { detail: BODY_PARSE_ERROR });
        const parsed = parseJsonBody(text);
        if (!parsed.ok && 'tooDeep' in parsed) return sendJson(res, 400, { detail: BODY_PARSE_ERROR });
        if (!parsed.ok) return unprocessable(res, [parsed.error]);
        body = parsed.value;
      } else if (bytes.length > 0) {
        body = bytes.toString('utf8');
      }
    }
    if (refusal || auth.status !== 'authenticated') return sendError(res, refusal ?? invalidApiKey());
    const { principal } = auth;
    recordOrganization(res, principal.organizationId);
    const admission = await admitOrganization(services, principal, clientGoneSignal(res));
    if (!admission.admitted) {
      res.set(admission.headers);
      return admission.error && sendError(res, admission.error);
    }
    try {
      return await serve(req, res, next, route, principal, path, body);
    } finally {
      admission.release();
    }
  };

  /** An admitted request: charged, validated, then executed by sofa. */
  const serve = async (
    req: Request,
    res: Response,
    next: NextFunction,
    route: PreparedRoute,
    principal: ApiKeyPrincipal,
    path: string,
    body: unknown,
  ) => {
    const charge = await chargeRequest(services, principal, route.statements);
    res.set(charge.headers);
    if (!charge.allowed) return sendError(res, rateLimited(charge.retryAfterSeconds));

    const validation = validateArguments({
      args: route.parameters,
      locationOf: route.locationOf,
      query: req.query as Record<string, string | string[]>,
      path: pathParameters(route.route, path),
      body,
      headers: req.headers,
    });
    if (!validation.ok) return unprocessable(res, validation.errors);
    const { [IDEMPOTENCY_KEY_ARGUMENT]: idempotencyKey, ...variables } = validation.variables;

    const context = createRequestContext(services, {
      principal,
      requestId: res.getHeader('x-request-id') as string | undefined,
      log: req.log ?? logger,
      idempotencyKey: idempotencyKey as string | undefined,
    });
    context.argumentsValidated = true;
    if (route.route.method === 'GET') {
      // Tenants' data: a browser may keep it but must ask again (ETag) before using it; no shared cache may.
      res.set('cache-control', 'private, no-cache');
      if (route.tagger) {
        const etag = await route.tagger.etagOf(context, principal.organizationId, variables);
        if (etag) {
          res.set('etag', etag);
          // Already charged as a request (the rate limit counts it): only the document is saved.
          if (notModified(req.headers['if-none-match'], etag)) return res.status(304).end();
        }
      }
    }
    (req as RequestWithExecution).restExecution = {
      route: route.route,
      context,
      document: route.document,
      variables,
      nextLink: (cursor) => nextLink(req, route.route, cursor),
      response: res,
    };
    // Nothing left for sofa to parse: the path in its canonical form (a `{braced}` UUID that
    // Pydantic accepts would fail sofa's UUID scalar), no query string, no body.
    req.url = canonicalPathOf(route.route, variables);
    req.originalUrl = req.url;
    if (route.route.method === 'POST') req.body = Buffer.alloc(0);
    // Settles once the response is sent: the organization's slot is held until then.
    return sofa(req, res, next);
  };

  const router = express.Router();
  // Express 5 passes a rejected promise to the app's error handler (JSON 500 with the request id).
  router.use(front);
  return router;
}

/** Largest body read from a request that will be refused (no key, a wrong one): a lead is a few hundred bytes. */
export const KEYLESS_MAX_BODY_BYTES = 16 * 1024;

/**
 * Reads a POST body's bytes up to `limit` (their encoding is decided later, as Python's json
 * module decides it: request-body.ts), or says it is larger without reading it all.
 */
function bodyReader(): (req: Request, res: Response, limit: number) => Promise<Buffer | { tooLarge: Error }> {
  const readers = new Map<number, express.RequestHandler>();
  return (req, res, limit) => {
    let read = readers.get(limit);
    if (!read) readers.set(limit, (read = express.raw({ type: () => true, limit })));
    return new Promise((resolve, reject) => {
      void read(req, res, (error?: unknown) => {
        if ((error as { status?: number } | undefined)?.status === 413) return resolve({ tooLarge: error as Error });
        if (error) return reject(error);
        resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      });
    });
  };
}

/** The next page's URL: this request's query with `cursor` set (and no `offset`), relative as RFC 8288 allows. */
function nextLink(req: Request, route: RestRoute, cursor: string): string {
  const index = req.originalUrl.indexOf('?');
  const query = new URLSearchParams(index >= 0 ? req.originalUrl.slice(index + 1) : '');
  query.delete('offset');
  query.delete('cursor');
  query.set('cursor', cursor);
  return `<${REST_BASE_PATH}${route.path}?${query.toString()}>; rel="next"`;
}

function canonicalPathOf(route: RestRoute, variables: Record<string, unknown>): string {
  return `${REST_BASE_PATH}${route.path}`.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(variables[name])));
}

/**
 * The path as Starlette routes it: percent-decoded as a whole before matching (so `%2F` is a
 * separator and `%72eports` is `reports`), like Python's `unquote` (a broken escape stays as
 * typed, bad UTF-8 becomes U+FFFD; decodeURIComponent would throw, a 500, on either).
 */
function decodedPath(req: Request): string {
  let path = decodedPaths.get(req);
  if (path === undefined) decodedPaths.set(req, (path = unescape(req.path)));
  return path;
}

/** Each request's path decoded once (the body reader and the front both need it). */
const decodedPaths = new WeakMap<Request, string>();

function pathParameters(route: RestRoute, path: string): Record<string, string> {
  const template = `${REST_BASE_PATH}${route.path}`.split('/');
  const segments = path.split('/');
  return Object.fromEntries(template.flatMap((part, i) => (part.startsWith(':') ? [[part.slice(1), segments[i] ?? '']] : [])));
}
