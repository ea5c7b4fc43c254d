/**
 * What the two browser pages (GraphiQL, Swagger UI) share: files served from installed npm
 * packages (never a CDN) under a fixed map, and a page whose only inline script is constant, so
 * that its hash can go in a strict Content-Security-Policy (per-page settings travel in a JSON
 * data block the script reads).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';

export interface PackageAsset {
  file: string;
  /** The package's version, appended as ?v= so an upgrade changes the URL despite the year-long cache. */
  version: string;
}

/** One year: asset URLs carry their package's version, so a cached copy never goes stale. */
const ASSET_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

/** A file of an installed package, resolved now so that a missing package fails at start-up. */
export function packageAsset(pkg: string, relativeFile: string): PackageAsset {
  const packageJson = require.resolve(`${pkg}/package.json`);
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return { file: path.join(path.dirname(packageJson), relativeFile), version };
}

/**
 * Only this origin, plus the hash of the page's one inline script. Styles need 'unsafe-inline':
 * both UIs set inline style attributes and inject <style> elements at run time.
 */
function contentSecurityPolicy(bootstrapScript: string): string {
  const hash = `'sha256-${createHash('sha256').update(bootstrapScript, 'utf8').digest('base64')}'`;
  return [
    "default-src 'self'",
    `script-src 'self' ${hash}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

/** JSON safe inside a <script> element: no '</script>', no '<!--', no HTML-significant characters. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtmlAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface StaticPageOptions {
  /** Where the page is served; its files are under `<path>/assets/`. */
  path: string;
  /** The only files served under `<path>/assets/`, by name. */
  assets: ReadonlyMap<string, PackageAsset>;
  /** The page's one inline script (constant). */
  bootstrapScript: string;
  /** The HTML, given the page's URL (mount prefix included) and a function giving each asset's URL. */
  render(pageUrl: string, assetUrl: (name: string) => string): string;
  /** Whether this request wants the page (default: always); when not, the request goes on to the next handler. */
  wants?(req: Request): boolean;
}

/**
 * The page and its assets. A fixed map of assets (rather than express.static over a package
 * folder) means no directory listing, no stock pages, no source maps and no path traversal by
 * construction.
 */
export function staticPageRouter(options: StaticPageOptions): Router {
  const pagePath = options.path.replace(/(.)\/+$/, '$1');
  if (!pagePath.startsWith('/')) throw new Error(`a page path must start with '/': ${options.path}`);
  const policy = contentSecurityPolicy(options.bootstrapScript);
  const router = Router();

  router.get(pagePath, (req: Request, res: Response, next) => {
    if (options.wants) {
      // The same URL may answer HTML or something else: caches must key on what was asked.
      res.vary('Accept');
      if (!options.wants(req)) return next();
    }
    // req.baseUrl keeps the URLs right when this router is mounted under a prefix.
    const pageUrl = `${req.baseUrl}${pagePath}`;
    const assetUrl = (name: string): string => {
      const asset = options.assets.get(name);
      if (!asset) throw new Error(`unknown asset ${name}`);
      return escapeHtmlAttribute(`${pageUrl}/assets/${name}?v=${encodeURIComponent(asset.version)}`);
    };
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': policy,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      })
      .send(options.render(pageUrl, assetUrl));
  });

  router.get(`${pagePath}/assets/:file`, (req: Request<{ file: string }>, res: Response, next) => {
    // A Map lookup: '__proto__', '..' or 'a/b' simply miss.
    const asset = options.assets.get(req.params.file);
    if (!asset) return next();
    res.set('X-Content-Type-Options', 'nosniff');
    res.sendFile(asset.file, { maxAge: ASSET_MAX_AGE_MS, immutable: true }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });

  return router;
}
