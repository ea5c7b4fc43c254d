/**
 * The /public REST interface. This front layer gives FastAPI's behaviour, once per request: the
 * route as matched (api/request-route.ts: 307 to the other slash form, JSON 404 and 405), the body
 * read (malformed JSON is a 422 even without a key, as FastAPI reads it first), the key checked
 * (401), the organization's budget charged (429), every argument validated in one pass (422, all
 * failures at once). Then sofa-api's endpoint for the route runs its GraphQL operation
 * (sofa-endpoints.ts). Every refusal and failure is answered by rest-errors.ts.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { recordOrganization, requestLogger } from '../../platform/http/access-log';
import { bodyTooLarge, closeIfBodyUnread, declaresBodyOver, isBodyTooLarge, withWireLimit } from '../../platform/http/unread-bodies';
import { badRequest, invalidApiKey, invalidInput, methodNotAllowed, notAuthenticated, notFound, rateLimited } from '../../shared/errors';
import { IDEMPOTENCY_KEY_ARGUMENT, IDEMPOTENCY_KEY_PARAMETER } from '../contract/idempotency-key';
import type { Location } from '../contract/pydantic-errors';
import { parseJsonBody } from '../contract/validation/json-body';
import { validateArguments } from '../contract/validation/validate-arguments';
import { decodeJsonBytes, isJsonContentType } from '../contract/validation/request-body';
import { rootArgumentsCheckedBeforeExecution } from '../graphql/argument-validation';
import { declaredStatements } from '../graphql/operation-cost';
import { refusalHeldFirst } from '../known-refusals';
import { KEYLESS_MAX_BODY_BYTES, MAX_BODY_BYTES } from '../limits';
import type { ApiKeyPrincipal } from '../../features/auth/api-keys';
import {
  admitOrganization,
  authenticate,
  chargeRequest,
  clientGoneSignal,
  createRequestContext,
  presentedKeyOf,
  spentBudgetRefusal,
  type ApiServices,
} from '../request-context';
import { matchRestRoute, restMatchOf } from '../request-route';
import { entityTagger, notModified } from './conditional-requests';
import { ExecutionFailed, sofaEndpoints, type SofaEndpoint } from './sofa-endpoints';
import { restErrorOfFailure, sendJson, sendRestError } from './rest-errors';
import { restDocumentFor, rootFieldOf } from './rest-documents';
import { RawJson } from '../answer-plan/raw-json';
import type { AnswerPlans } from '../answer-plan/answer-plans';
import { fieldNameOf, locationOf, REST_BASE_PATH, REST_ROUTES, RestRouteTable, type RestRoute } from './routes';

/** Starlette's redirect_slashes answer (JSON, like every answer; express's res.redirect is text/plain). */
const TEMPORARY_REDIRECT = JSON.stringify({ detail: 'Temporary Redirect' });

/** Everything about a route that does not change between requests, worked out once. */
function prepare(schema: GraphQLSchema, route: RestRoute, endpoint: SofaEndpoint) {
  // Its root field's arguments are validated here, before execution: the GraphQL pass skips them.
  const document = rootArgumentsCheckedBeforeExecution(restDocumentFor(schema, route));
  const headers = route.field === 'Mutation.createLead' ? [IDEMPOTENCY_KEY_PARAMETER] : [];
  return {
    route,
    document,
    /** the GraphQL arguments, plus the header parameters the route reads itself (Idempotency-Key) */
    parameters: [...rootFieldOf(schema, route).args, ...headers],
    /** what the route costs in the rate limit: the SQL statements its operation may run, whatever the arguments */
    statements: Math.max(1, declaredStatements(schema, document)),
    locationOf: (argument: string): Location => (argument === IDEMPOTENCY_KEY_ARGUMENT ? 'header' : locationOf(route, argument)),
    /** fetch-one routes: the ETag of an answer */
    tagger: entityTagger(route.field, document),
    /** sofa's endpoint for the route: runs its operation */
    endpoint,
  };
}

type PreparedRoute = ReturnType<typeof prepare>;

/** Starlette's answer to a body it cannot read. */
const BODY_PARSE_ERROR = 'There was an error parsing the body';

export function restRouter(schema: GraphQLSchema, services: ApiServices, plans?: AnswerPlans): express.Router {
  const endpoints = sofaEndpoints(schema, plans);
  const prepared = new Map(REST_ROUTES.map((route) => [route, prepare(schema, route, endpoints.get(route)!)]));
  const readBody = bodyReader();
  const table = new RestRouteTable();

  const front = async (req: Request, res: Response, next: NextFunction) => {
    // Matched when the request arrived (api/request-route.ts); here only when mounted without it.
    const match = restMatchOf(res) ?? matchRestRoute(table, req, res);
    if (!match) return next();
    // Every response is JSON, the redirect included (express's res.redirect answers text/plain).
    if (match.kind === 'redirect') {
      res.set('location', redirectLocation(req, match.location));
      return sendJson(res, 307, TEMPORARY_REDIRECT);
    }
    if (match.kind === 'none') return sendRestError(res, notFound('Not Found'));
    if (match.kind === 'wrong-method') return sendRestError(res, methodNotAllowed(match.allow));
    const route = prepared.get(match.route)!;

    // The key before the body: without a valid key, at most KEYLESS_MAX_BODY_BYTES of it are read.
    const held = refusalHeldFirst(res);
    const auth = await authenticate(services, presentedKeyOf(req), req.ip ?? '', held);
    const refusal =
      auth.status === 'throttled'
        ? rateLimited(auth.decision.retryAfterSeconds)
        : auth.status === 'missing'
          ? notAuthenticated()
          : auth.status === 'invalid'
            ? invalidApiKey()
            : undefined;
    if (auth.status === 'throttled') res.set(auth.decision.headers);
    // A spent budget is answered before the body is read: whatever the request sends, it costs no parsing.
    const spent = auth.status === 'authenticated' ? await spentBudgetRefusal(services, auth.principal, held) : undefined;
    if (spent) {
      closeIfBodyUnread(req, res);
      res.set(spent.headers);
      return spent.error && sendRestError(res, spent.error);
    }

    // FastAPI reads the body before anything else: malformed JSON is a 422 even without a key.
    // Only a declared JSON body is parsed; any other reaches validation as text, as in FastAPI.
    let body: unknown;
    if (route.route.method === 'POST') {
      const read = await readBody(req, res, refusal ? KEYLESS_MAX_BODY_BYTES : MAX_BODY_BYTES);
      if (!Buffer.isBuffer(read)) {
        // Not read on: the connection closes after the answer. A request that will be refused gets
        // its refusal's answer (not worth reading), any other the 413.
        closeIfBodyUnread(req, res);
        return refusal ? sendRestError(res, refusal) : next(read.tooLarge);
      }
      if (read.length > 0 && isJsonContentType(req.headers['content-type'])) {
        const text = decodeJsonBytes(read);
        if (text === undefined) return sendRestError(res, badRequest(BODY_PARSE_ERROR));
        const parsed = parseJsonBody(text);
        if (!parsed.ok && 'tooDeep' in parsed) return sendRestError(res, badRequest(BODY_PARSE_ERROR));
        if (!parsed.ok) return sendRestError(res, invalidInput([parsed.error]));
        body = parsed.value;
      } else if (read.length > 0) body = read.toString('utf8');
    }
    if (refusal || auth.status !== 'authenticated') return sendRestError(res, refusal ?? invalidApiKey());
    const { principal } = auth;
    recordOrganization(res, principal.organizationId);
    const admission = await admitOrganization(services, principal, clientGoneSignal(res), held);
    if (!admission.admitted) {
      res.set(admission.headers);
      return admission.error && sendRestError(res, admission.error);
    }
    try {
      return await serve(req, res, route, principal, match.parameters, body);
    } finally {
      admission.release();
    }
  };

  /** An admitted request: charged, validated, then executed by sofa's endpoint. */
  const serve = async (
    req: Request,
    res: Response,
    route: PreparedRoute,
    principal: ApiKeyPrincipal,
    pathParameters: Record<string, string>,
    body: unknown,
  ) => {
    const charge = await chargeRequest(services, principal, route.statements);
    res.set(charge.headers);
    if (!charge.allowed) return sendRestError(res, rateLimited(charge.retryAfterSeconds));

    const validation = validateArguments({
      args: route.parameters,
      locationOf: route.locationOf,
      query: req.query as Record<string, string | string[]>,
      path: pathParameters,
      body,
      headers: req.headers,
    });
    if (!validation.ok) return sendRestError(res, invalidInput(validation.errors));
    const { [IDEMPOTENCY_KEY_ARGUMENT]: idempotencyKey, ...variables } = validation.variables;

    const context = createRequestContext(services, {
      principal,
      requestId: res.getHeader('x-request-id') as string | undefined,
      log: () => requestLogger(req),
      idempotencyKey: idempotencyKey as string | undefined,
    });
    // With If-None-Match the row's version is read first; without, a report's comes with its answer.
    const probeFirst = route.tagger && (req.headers['if-none-match'] !== undefined || !route.tagger.versionInAnswer);
    if (route.route.method === 'GET') {
      // Tenants' data: a browser may keep it but must ask again (ETag) before using it; no shared cache may.
      res.set('cache-control', 'private, no-cache');
      if (probeFirst) {
        const etag = await route.tagger!.etagOf(context, principal.organizationId, variables);
        if (etag) {
          res.set('etag', etag);
          // Already charged as a request (the rate limit counts it): only the document is saved.
          if (notModified(req.headers['if-none-match'], etag)) return res.status(304).end();
        }
      }
    }
    try {
      const seen: { written?: RawJson } = {};
      const answer = await route.endpoint({
        context,
        document: route.document,
        variables,
        onResult: (result) => {
          const value = result.data?.[fieldNameOf(route.route)];
          seen.written = value instanceof RawJson ? value : undefined;
          const nextCursor = seen.written
            ? seen.written.meta.nextCursor
            : (value as { next_cursor?: unknown } | null | undefined)?.next_cursor;
          if (typeof nextCursor === 'string') res.set('link', nextLink(req, route.route, nextCursor));
        },
      });
      if (route.tagger && !probeFirst && answer.status === 200) {
        // Answered whole by the typed path (rare: its answer carries no version): the probe gives it.
        const version = seen.written?.meta.version;
        const etag = version
          ? route.tagger.etagOfVersion(variables, version)
          : await route.tagger.etagOf(context, principal.organizationId, variables);
        if (etag) res.set('etag', etag);
      }
      return sendJson(res, answer.status, seen.written ? seen.written.take() : answer.body);
    } catch (error) {
      const failure = error instanceof ExecutionFailed ? error.errors[0] : error;
      return sendRestError(res, restErrorOfFailure(failure, context.log), route.locationOf);
    }
  };

  const router = express.Router();
  // Express 5 passes a rejected promise to the app's error handler (JSON 500 with the request id).
  router.use(front);
  return router;
}

/**
 * Reads a POST body's bytes up to `limit` (their encoding is decided later, as Python's json
 * module decides it: request-body.ts), or says it is larger without reading it all.
 */
function bodyReader(): (req: Request, res: Response, limit: number) => Promise<Buffer | { tooLarge: Error }> {
  const readers = new Map<number, express.RequestHandler>();
  return (req, res, limit) => {
    let read = readers.get(limit);
    if (!read) readers.set(limit, (read = withWireLimit(express.raw({ type: () => true, limit }), limit)));
    // Declared too long: refused before body-parser, which would read it all first (unread-bodies.ts).
    if (declaresBodyOver(req, limit)) return Promise.resolve({ tooLarge: bodyTooLarge(limit) });
    return new Promise((resolve, reject) => {
      void read(req, res, (error?: unknown) => {
        if (isBodyTooLarge(error)) return resolve({ tooLarge: error });
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

/**
 * The other slash form's URL, with this request's query. The path was decoded: anything outside
 * printable ASCII (a U+FFFD from bad UTF-8, a space) is escaped again, or it could not travel in
 * a header (Node refuses it: a 500).
 */
function redirectLocation(req: Request, path: string): string {
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  return `${path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))}${query}`;
}
