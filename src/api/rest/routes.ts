/**
 * The spec's six REST endpoints (section 4), each one GraphQL root field. Everything else about a
 * route (its parameters, their types, defaults and constraints, the response shape) is read from
 * the schema.
 */
import type { Location } from '../contract/pydantic-errors';

export interface RestRoute {
  /** `Query.reports` / `Mutation.createLead` */
  field: string;
  method: 'GET' | 'POST';
  /** express path under /public, `:name` for path parameters */
  path: string;
  status: 200 | 201;
  summary: string;
  tag: string;
  /** a 404 this route can answer, for the OpenAPI document */
  notFound?: string;
}

export const REST_BASE_PATH = '/public';

export const REST_ROUTES: readonly RestRoute[] = [
  { field: 'Query.reports', method: 'GET', path: '/reports/', status: 200, summary: 'List reports', tag: 'reports' },
  {
    field: 'Mutation.createLead',
    method: 'POST',
    path: '/reports/create-lead',
    status: 201,
    summary: 'Create a lead report',
    tag: 'reports',
    notFound: 'Dealership not found',
  },
  {
    field: 'Query.report',
    method: 'GET',
    path: '/reports/:report_id',
    status: 200,
    summary: 'Fetch one report',
    tag: 'reports',
    notFound: 'Report not found',
  },
  { field: 'Query.users', method: 'GET', path: '/users/', status: 200, summary: 'List users', tag: 'users' },
  {
    field: 'Query.user',
    method: 'GET',
    path: '/users/:user_id',
    status: 200,
    summary: 'Fetch one user',
    tag: 'users',
    notFound: 'User not found',
  },
  { field: 'Query.dealerships', method: 'GET', path: '/dealerships/', status: 200, summary: 'List dealerships', tag: 'dealerships' },
  { field: 'Query.events', method: 'GET', path: '/events/', status: 200, summary: 'Read the change feed', tag: 'events' },
];

export function fieldNameOf(route: RestRoute): string {
  return route.field.split('.')[1]!;
}

/** Where an argument of the route comes from: its path, the JSON body (POST) or the query string. */
export function locationOf(route: RestRoute, argName: string): Location {
  if (route.path.split('/').includes(`:${argName}`)) return 'path';
  return route.method === 'POST' ? 'body' : 'query';
}

/** What a request's method and (decoded) path lead to under REST_BASE_PATH. */
export type RouteMatch =
  | { kind: 'route'; route: RestRoute; template: string; parameters: Record<string, string> }
  /** Starlette's redirect_slashes: the other slash form is a route (`location` is the path, decoded) */
  | { kind: 'redirect'; location: string }
  | { kind: 'wrong-method'; template: string; allow: string }
  | { kind: 'none' };

/** `/public/reports/{report_id}`: how the access log and the metrics name a route. */
export function templateOf(route: RestRoute): string {
  return `${REST_BASE_PATH}${route.path.replace(/:(\w+)/g, '{$1}')}`;
}

/**
 * The spec's routes, matched once per request (api/request-route.ts): the front layer, the access
 * log and the metrics all read that one match.
 */
export class RestRouteTable {
  private readonly templates = REST_ROUTES.map((route) => ({
    route,
    segments: `${REST_BASE_PATH}${route.path}`.split('/'),
    template: templateOf(route),
  }));

  match(method: string, path: string): RouteMatch {
    const candidates = this.candidates(path);
    if (candidates.length === 0) {
      // Starlette's redirect_slashes: strip every trailing slash, or add one.
      const toggled = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
      return this.candidates(toggled).length > 0 ? { kind: 'redirect', location: toggled } : { kind: 'none' };
    }
    const found = candidates.find((c) => c.route.method === method);
    if (!found) {
      return {
        kind: 'wrong-method',
        template: candidates[0]!.template,
        allow: [...new Set(candidates.map((c) => c.route.method))].join(', '),
      };
    }
    const segments = path.split('/');
    const parameters = Object.fromEntries(
      found.segments.flatMap((part, i) => (part.startsWith(':') ? [[part.slice(1), segments[i] ?? '']] : [])),
    );
    return { kind: 'route', route: found.route, template: found.template, parameters };
  }

  /** Path parameters match one non-empty segment. */
  private candidates(path: string) {
    const segments = path.split('/');
    return this.templates.filter(
      ({ segments: template }) =>
        template.length === segments.length &&
        template.every((part, i) => (part.startsWith(':') ? segments[i] !== '' : part === segments[i])),
    );
  }
}
