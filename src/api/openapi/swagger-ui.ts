/**
 * Swagger UI for the REST API, served entirely from this service (swagger-ui-dist in
 * node_modules): no CDN, no validator badge, so the page works where there is no internet.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';

export interface SwaggerUiOptions {
  /** Where the page is served, e.g. '/docs'; its files are under '<path>/assets/'. */
  path: string;
  /** URL of the OpenAPI document the page renders, e.g. '/openapi.json'. */
  openApiUrl: string;
}

/** One year: the URLs carry swagger-ui-dist's version, so a cached copy never goes stale. */
const ASSET_MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * The only files served under <path>/assets/. A fixed map (rather than express.static over the
 * package folder) means no directory listing, no stock index.html pointing at the petstore, and no
 * path traversal by construction.
 */
const ASSET_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
] as const;

type AssetName = (typeof ASSET_FILES)[number];

function swaggerUiDist(): { dir: string; version: string } {
  const packageJson = require.resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return { dir: path.dirname(packageJson), version };
}

/**
 * The page's only inline script. It is constant so that its hash can go in the CSP once; the
 * settings travel in a JSON data block it reads.
 */
const BOOTSTRAP_SCRIPT = `
const config = JSON.parse(document.getElementById('swagger-ui-config').textContent);
window.ui = SwaggerUIBundle({
  url: config.url,
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
});
`;

const BOOTSTRAP_HASH = `'sha256-${createHash('sha256').update(BOOTSTRAP_SCRIPT, 'utf8').digest('base64')}'`;

/**
 * Only this origin. Swagger UI sets inline styles and uses data: URLs for its icons.
 * connect-src 'self' also limits "Try it out" to this service, which is where the API lives.
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

function renderPage(pageUrl: string, version: string, openApiUrl: string): string {
  const assetUrl = (name: AssetName): string =>
    escapeHtmlAttribute(`${pageUrl}/assets/${name}?v=${encodeURIComponent(version)}`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vehicle Report API – REST documentation</title>
<link rel="stylesheet" href="${assetUrl('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${assetUrl('favicon-32x32.png')}" sizes="32x32">
<link rel="icon" type="image/png" href="${assetUrl('favicon-16x16.png')}" sizes="16x16">
<style>html { box-sizing: border-box; overflow-y: scroll; } *, *::before, *::after { box-sizing: inherit; } body { margin: 0; background: #fafafa; }</style>
</head>
<body>
<div id="swagger-ui"></div>
<script type="application/json" id="swagger-ui-config">${jsonForHtml({ url: openApiUrl })}</script>
<script src="${assetUrl('swagger-ui-bundle.js')}"></script>
<script src="${assetUrl('swagger-ui-standalone-preset.js')}"></script>
<script>${BOOTSTRAP_SCRIPT}</script>
</body>
</html>
`;
}

export function swaggerUiRouter(options: SwaggerUiOptions): Router {
  const pagePath = options.path.replace(/\/+$/, '');
  if (!pagePath.startsWith('/')) throw new Error(`Swagger UI path must start with '/': ${options.path}`);
  // Resolved now so that a missing package fails at start-up, not on the first page view.
  const dist = swaggerUiDist();
  const assets = new Map<string, string>(ASSET_FILES.map((name) => [name, path.join(dist.dir, name)]));
  const router = Router();

  router.get(pagePath, (req: Request, res: Response) => {
    // req.baseUrl keeps the asset URLs right when this router is mounted under a prefix.
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      })
      .send(renderPage(`${req.baseUrl}${pagePath}`, dist.version, options.openApiUrl));
  });

  router.get(`${pagePath}/assets/:file`, (req: Request<{ file: string }>, res: Response, next) => {
    // A Map lookup: '__proto__', '..' or 'a/b' simply miss.
    const file = assets.get(req.params.file);
    if (!file) {
      next();
      return;
    }
    res.set('X-Content-Type-Options', 'nosniff');
    res.sendFile(file, { maxAge: ASSET_MAX_AGE_MS, immutable: true }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  });

  return router;
}
