/**
 * The spec's six REST endpoints (section 4), each one GraphQL root field. Everything else about a
 * route (its parameters, their types, defaults and constraints, the response shape) is read from
 * the schema.
 */
import type { Location } from '../contract/validation';

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

/** Matches a concrete path against the route templates (path parameters match one segment). */
export function matchRoutes(path: string): RestRoute[] {
  const segments = path.split('/');
  return REST_ROUTES.filter((route) => {
    const template = `${REST_BASE_PATH}${route.path}`.split('/');
    return (
      template.length === segments.length && template.every((part, i) => (part.startsWith(':') ? segments[i] !== '' : part === segments[i]))
    );
  });
}
