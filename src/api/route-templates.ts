/**
 * The route template of a request (`/public/reports/{report_id}`), for the access log and the
 * metrics: ids never appear, and anything else is `unmatched`, so the set stays bounded.
 */
import { UNMATCHED_ROUTE } from '../platform/http/access-log';
import { matchRoutes, REST_BASE_PATH } from './rest/routes';

/** Paths served as they are, without parameters (express also serves them with a trailing slash). */
const FIXED_PATHS = new Set(['/graphql', '/openapi.json', '/docs', '/healthz', '/readyz', '/metrics']);
const ASSET_PATH = /^\/(docs|graphql)\/assets\/[^/]+$/;

export function routeTemplateOf(method: string, path: string): string {
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (FIXED_PATHS.has(bare)) return bare;
  const asset = ASSET_PATH.exec(path);
  if (asset) return `/${asset[1]}/assets/{file}`;
  // `/public/reports/create-lead` is also a `{report_id}`: the method decides.
  const candidates = matchRoutes(path);
  const route = candidates.find((r) => r.method === method) ?? candidates[0];
  return route ? `${REST_BASE_PATH}${route.path.replace(/:(\w+)/g, '{$1}')}` : UNMATCHED_ROUTE;
}
