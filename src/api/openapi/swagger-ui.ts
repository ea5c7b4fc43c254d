/**
 * Swagger UI for the REST API, served entirely from this service (swagger-ui-dist in
 * node_modules): no CDN, no validator badge, so the page works where there is no internet.
 */
import type { Router } from 'express';
import { jsonForHtml, packageAsset, staticPageRouter } from '../../platform/http/static-page';

export interface SwaggerUiOptions {
  /** Where the page is served, e.g. '/docs'; its files are under '<path>/assets/'. */
  path: string;
  /** URL of the OpenAPI document the page renders, e.g. '/openapi.json'. */
  openApiUrl: string;
}

const ASSET_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-16x16.png', 'favicon-32x32.png'];

/**
 * The key typed into "Authorize" stays in the page's memory only (persistAuthorization off): a
 * key in localStorage outlives the session and is readable by any script of this origin.
 */
const BOOTSTRAP_SCRIPT = `
const config = JSON.parse(document.getElementById('swagger-ui-config').textContent);
window.ui = SwaggerUIBundle({
  url: config.url,
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: false,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'StandaloneLayout',
});
`;

export function swaggerUiRouter(options: SwaggerUiOptions): Router {
  return staticPageRouter({
    path: options.path,
    assets: new Map(ASSET_FILES.map((name) => [name, packageAsset('swagger-ui-dist', name)])),
    bootstrapScript: BOOTSTRAP_SCRIPT,
    render: (_pageUrl, assetUrl) => `<!DOCTYPE html>
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
<script type="application/json" id="swagger-ui-config">${jsonForHtml({ url: options.openApiUrl })}</script>
<script src="${assetUrl('swagger-ui-bundle.js')}"></script>
<script src="${assetUrl('swagger-ui-standalone-preset.js')}"></script>
<script>${BOOTSTRAP_SCRIPT}</script>
</body>
</html>
`,
  });
}
