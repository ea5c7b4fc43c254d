/**
 * The route of a request, decided once, first thing: the REST front layer serves what was matched
 * here, and the access log and the metrics name it (a template, `/public/reports/{report_id}`:
 * ids never appear, and anything else is `unmatched`, so the set stays bounded).
 */
import { unescape } from 'node:querystring';
import type { Request, RequestHandler, Response } from 'express';
import { recordRoute } from '../platform/http/access-log';
import { REST_BASE_PATH, RestRouteTable, type RouteMatch } from './rest/routes';

/** Paths served as they are, without parameters (express also serves them with a trailing slash). */
const FIXED_PATHS = new Set(['/graphql', '/openapi.json', '/docs', '/healthz', '/readyz', '/metrics']);
const ASSET_PATH = /^\/(docs|graphql)\/assets\/[^/]+$/;

/** What `requestRoute` matched for a REST path (undefined for any other path). */
export function restMatchOf(res: Response): RouteMatch | undefined {
  return (res.locals as { restMatch?: RouteMatch }).restMatch;
}

/**
 * Matches a REST path and records the match, once: `requestRoute` calls it first thing; the REST
 * front layer only when it is mounted without it (an app of its own in a test).
 */
export function matchRestRoute(table: RestRouteTable, req: Request, res: Response): RouteMatch | undefined {
  // Decoded before the prefix is looked at: Starlette routes `/%70ublic/reports/` as `/public/reports/`,
  // decoding like Python's `unquote` (a broken escape stays as typed, bad UTF-8 becomes U+FFFD;
  // decodeURIComponent would throw, a 500, on either).
  const path = unescape(req.path);
  if (path !== REST_BASE_PATH && !path.startsWith(`${REST_BASE_PATH}/`)) return undefined;
  const match = table.match(req.method, path);
  (res.locals as { restMatch?: RouteMatch }).restMatch = match;
  if (match.kind === 'route' || match.kind === 'wrong-method') recordRoute(res, match.template);
  return match;
}

export function requestRoute(table: RestRouteTable = new RestRouteTable()): RequestHandler {
  return (req, res, next) => {
    if (matchRestRoute(table, req, res)) return next();
    const bare = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    if (FIXED_PATHS.has(bare)) recordRoute(res, bare);
    else {
      const asset = ASSET_PATH.exec(req.path);
      if (asset) recordRoute(res, `/${asset[1]}/assets/{file}`);
    }
    next();
  };
}
