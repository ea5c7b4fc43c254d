/**
 * GraphiQL 3.8 served entirely from this service.
 *
 * Apollo Server's own landing page loads from Apollo's CDN and Google Fonts, which are not
 * reachable where this service runs, so it is disabled and this router serves GraphiQL from the
 * UMD builds shipped in node_modules instead. Mount it BEFORE Apollo's middleware on the same
 * path: it answers only browsers asking for HTML and passes every other request on.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';

export interface GraphiqlOptions {
  /** Path of the GraphQL endpoint, e.g. '/graphql'; the page is served there and queries go there. */
  endpoint: string;
  /** Query shown in the editor on first visit. */
  exampleQuery: string;
  /** Value prefilled for the x-api-key header; a placeholder asking for a key when absent. */
  defaultApiKey?: string;
}

interface Asset {
  file: string;
  /** Appended as ?v= so a dependency upgrade changes the URL despite the year-long cache. */
  version: string;
}

const API_KEY_PLACEHOLDER = 'paste your API key';

/** One year: the URLs carry the package version, so a cached copy never goes stale. */
const ASSET_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

function packageAsset(pkg: string, relativeFile: string): Asset {
  const packageJson = require.resolve(`${pkg}/package.json`);
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return { file: path.join(path.dirname(packageJson), relativeFile), version };
}

/**
 * The only files served under <endpoint>/assets/. A fixed map (rather than express.static)
 * means no directory listing, no source maps and no path traversal by construction.
 */
function graphiqlAssets(): ReadonlyMap<string, Asset> {
  return new Map([
    ['react.production.min.js', packageAsset('react', 'umd/react.production.min.js')],
    ['react-dom.production.min.js', packageAsset('react-dom', 'umd/react-dom.production.min.js')],
    ['graphiql.min.js', packageAsset('graphiql', 'graphiql.min.js')],
    ['graphiql.min.css', packageAsset('graphiql', 'graphiql.min.css')],
  ]);
}

/**
 * The page's only inline script. It is constant so that its hash can go in the CSP once, instead
 * of a per-request nonce; the per-page settings travel in a JSON data block it reads.
 */
const BOOTSTRAP_SCRIPT = `
const config = JSON.parse(document.getElementById('graphiql-config').textContent);
const fetcher = GraphiQL.createFetcher({ url: config.url });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: config.query,
    defaultHeaders: config.headers,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: true,
    defaultEditorToolsVisibility: 'headers',
  }),
);
`;

const BOOTSTRAP_HASH = `'sha256-${createHash('sha256').update(BOOTSTRAP_SCRIPT, 'utf8').digest('base64')}'`;

/**
 * Only this origin. Styles need 'unsafe-inline': GraphiQL and CodeMirror set inline style
 * attributes and inject <style> elements at run time.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  `script-src 'self' ${BOOTSTRAP_HASH}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** JSON safe inside a <script> element: no '</script>', no '<!--', no HTML-significant characters. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtmlAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function renderPage(endpointUrl: string, assets: ReadonlyMap<string, Asset>, options: GraphiqlOptions): string {
  const assetUrl = (name: string): string => {
    const asset = assets.get(name);
    if (!asset) throw new Error(`unknown GraphiQL asset ${name}`);
    return escapeHtmlAttribute(`${endpointUrl}/assets/${name}?v=${encodeURIComponent(asset.version)}`);
  };
  const config = {
    url: endpointUrl,
    query: options.exampleQuery,
    headers: JSON.stringify({ 'x-api-key': options.defaultApiKey ?? API_KEY_PLACEHOLDER }, null, 2),
  };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL – Vehicle Report API</title>
<link rel="stylesheet" href="${assetUrl('graphiql.min.css')}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script type="application/json" id="graphiql-config">${jsonForHtml(config)}</script>
<script src="${assetUrl('react.production.min.js')}"></script>
<script src="${assetUrl('react-dom.production.min.js')}"></script>
<script src="${assetUrl('graphiql.min.js')}"></script>
<script>${BOOTSTRAP_SCRIPT}</script>
</body>
</html>
`;
}

/** True when the client prefers an HTML page over a JSON answer (a browser navigating here). */
function wantsHtml(req: Request): boolean {
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

export function graphiqlRouter(options: GraphiqlOptions): Router {
  const { endpoint } = options;
  if (!endpoint.startsWith('/')) throw new Error(`GraphiQL endpoint must start with '/': ${endpoint}`);
  // Resolved now so that a missing package fails at start-up, not on the first page view.
  const assets = graphiqlAssets();
  const router = Router();

  router.get(endpoint, (req: Request, res: Response, next) => {
    // The same URL answers HTML or JSON depending on Accept: caches must key on it either way.
    res.vary('Accept');
    if (!wantsHtml(req)) {
      next();
      return;
    }
    // req.baseUrl keeps the URLs right when this router is mounted under a prefix.
    const endpointUrl = `${req.baseUrl}${endpoint}`;
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      })
      .send(renderPage(endpointUrl, assets, options));
  });

  router.get(`${endpoint}/assets/:file`, (req: Request<{ file: string }>, res: Response, next) => {
    // A Map lookup: '__proto__', '..' or 'a/b' simply miss.
    const asset = assets.get(req.params.file);
    if (!asset) {
      next();
      return;
    }
    res.set('X-Content-Type-Options', 'nosniff');
    res.sendFile(asset.file, { maxAge: ASSET_MAX_AGE_MS, immutable: true }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });

  return router;
}
