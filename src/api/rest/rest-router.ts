/**
 * The /public REST interface: sofa-api runs the GraphQL operations; this thin layer in front of it
 * gives FastAPI's behaviour, which sofa alone does not: redirects for the trailing slash, JSON 404
 * and 405, 401 before validation, Pydantic-style 422 for every argument at once (driven by the
 * schema's argument types), and only the spec's six routes (none of sofa's /webhook routes).
 */
import type { IncomingMessage } from 'node:http';
import { unescape } from 'node:querystring';
import express, { type NextFunction, type Request, type Response } from 'express';
import { execute, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { ARGUMENT_CONSTRAINTS } from '../contract/argument-constraints';
import type { GraphQLContext } from '../../features/context';
import { createContext, type RequestServices } from '../request-context';
import { restDocumentFor, rootFieldOf } from './rest-documents';
import { restErrorFrom } from './rest-errors';
import { locationOf, matchRoutes, REST_BASE_PATH, REST_ROUTES, type RestRoute } from './routes';
import { parseJsonBody, validateArguments, type PydanticErrorItem } from '../contract/validation';
import { recordOrganization } from '../../platform/http/access-log';

export const MAX_BODY_BYTES = 100 * 1024;

/** What the front layer hands to sofa for one request. */
interface RestRequestContext extends GraphQLContext {
  restDocument: DocumentNode;
  restVariables: Record<string, unknown>;
}

type RequestWithRest = IncomingMessage & { restContext?: RestRequestContext };

function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.status(status).set(headers).type('application/json').send(JSON.stringify(body));
}

function unprocessable(res: Response, detail: PydanticErrorItem[]): void {
  sendJson(res, 422, { detail });
}

/** The route for this method, or the reason there is none (404, 405, or a 307 to the other slash form). */
function resolveRoute(req: Request): { route: RestRoute } | { redirect: string } | { status: 404 | 405; allow?: string } {
  const candidates = matchRoutes(req.path);
  if (candidates.length === 0) {
    const toggled = req.path.endsWith('/') ? req.path.slice(0, -1) : `${req.path}/`;
    if (matchRoutes(toggled).length > 0) {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      return { redirect: `${toggled}${query}` };
    }
    return { status: 404 };
  }
  const route = candidates.find((r) => r.method === req.method);
  if (!route) return { status: 405, allow: [...new Set(candidates.map((r) => r.method))].join(', ') };
  return { route };
}

export function restRouter(schema: GraphQLSchema, services: RequestServices): express.Router {
  const documents = new Map(REST_ROUTES.map((route) => [route, restDocumentFor(schema, route)]));
  const sofa = useSofa({
    schema,
    basePath: REST_BASE_PATH,
    routes: Object.fromEntries(REST_ROUTES.map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.status }])),
    context: ({ req }: { req: RequestWithRest }) => req.restContext!,
    // sofa builds its own selection and coerces variables loosely; run the route's own document with
    // the variables the validation layer produced instead.
    execute: ((args: ExecutionArgs) => {
      const context = args.contextValue as RestRequestContext;
      return execute({ ...args, document: context.restDocument, variableValues: context.restVariables, operationName: undefined });
    }) as typeof execute,
    errorHandler: (errors) => {
      const { status, body, headers } = restErrorFrom(errors as never);
      return new globalThis.Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      }) as never;
    },
  });

  const readBody = express.text({ type: () => true, limit: MAX_BODY_BYTES });

  const front = async (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== REST_BASE_PATH && !req.path.startsWith(`${REST_BASE_PATH}/`)) return next();
    const resolved = resolveRoute(req);
    // decisions.md: every response is JSON, the redirect included (express's res.redirect answers text/plain).
    if ('redirect' in resolved) return sendJson(res, 307, { detail: 'Temporary Redirect' }, { location: resolved.redirect });
    if ('status' in resolved) {
      if (resolved.allow) res.set('allow', resolved.allow);
      return sendJson(res, resolved.status, { detail: resolved.status === 404 ? 'Not Found' : 'Method Not Allowed' });
    }
    const { route } = resolved;

    // FastAPI reads the body before anything else: malformed JSON is a 422 even without a key.
    let body: unknown;
    if (route.method === 'POST') {
      const text = typeof req.body === 'string' ? req.body : '';
      if (text.trim() !== '') {
        const parsed = parseJsonBody(text);
        if (!parsed.ok && 'tooDeep' in parsed) return sendJson(res, 400, { detail: 'There was an error parsing the body' });
        if (!parsed.ok) return unprocessable(res, [parsed.error]);
        body = parsed.value;
      }
    }

    const context = await createContext(services, req.headers, res.getHeader('x-request-id') as string | undefined);
    if (context.auth.status === 'missing') {
      return sendJson(res, 401, { detail: 'Not authenticated' }, { 'www-authenticate': 'APIKey' });
    }
    if (context.auth.status === 'invalid') return sendJson(res, 401, { detail: 'Invalid API key' });
    recordOrganization(res, context.auth.principal.organizationId);
    if (context.rateLimit) {
      res.set(context.rateLimit.headers);
      if (!context.rateLimit.allowed) return sendJson(res, 429, { detail: 'Rate limit exceeded' });
    }

    const field = rootFieldOf(schema, route);
    const validation = validateArguments({
      args: field.args,
      locationOf: (name) => locationOf(route, name),
      query: req.query as Record<string, string | string[]>,
      path: pathParameters(route, req.path),
      body,
      headers: req.headers,
      constraints: ARGUMENT_CONSTRAINTS,
    });
    if (!validation.ok) return unprocessable(res, validation.errors);

    (req as RequestWithRest).restContext = {
      ...context,
      restDocument: documents.get(route)!,
      restVariables: validation.variables,
    };
    // sofa would parse the raw query string and body again with its own, looser (and sometimes
    // stricter: a date alone) rules; the variables come from above, so it sees neither. It still
    // parses path parameters and the body before `execute`: give it their validated, canonical
    // form (a `{braced}` or `urn:uuid:` UUID that Pydantic accepts fails sofa's UUID scalar, a 500).
    const canonicalPath = canonicalPathOf(route, validation.variables);
    req.url = canonicalPath;
    req.originalUrl = canonicalPath;
    if (route.method === 'POST') req.body = JSON.stringify(validation.variables);
    return sofa(req, res, next);
  };

  const router = express.Router();
  router.use((req, res, next) => {
    if (req.method === 'POST' && req.path.startsWith(`${REST_BASE_PATH}/`)) return readBody(req, res, next);
    return next();
  });
  // Express 5 passes a rejected promise to the app's error handler (JSON 500 with the request id).
  router.use(front);
  return router;
}

function canonicalPathOf(route: RestRoute, variables: Record<string, unknown>): string {
  return `${REST_BASE_PATH}${route.path}`.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(variables[name])));
}

function pathParameters(route: RestRoute, path: string): Record<string, string> {
  const template = `${REST_BASE_PATH}${route.path}`.split('/');
  const segments = path.split('/');
  return Object.fromEntries(
    // Like Starlette (Python's `unquote`): a broken escape stays as typed, bad UTF-8 becomes U+FFFD;
    // decodeURIComponent would throw (a 500) on either.
    template.flatMap((part, i) => (part.startsWith(':') ? [[part.slice(1), unescape(segments[i] ?? '')]] : [])),
  );
}

