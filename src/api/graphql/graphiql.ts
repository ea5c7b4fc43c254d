/**
 * GraphiQL 3.8 served entirely from this service, from the UMD builds in node_modules: Apollo
 * Server's own landing page loads from Apollo's CDN and Google Fonts, not reachable where this
 * service runs. Mount it BEFORE Apollo's middleware on the same path: it answers only browsers
 * asking for HTML and passes every other request on.
 */
import type { Request, Router } from 'express';
import { jsonForHtml, packageAsset, staticPageRouter } from '../../platform/http/static-page';

export interface GraphiqlOptions {
  /** Path of the GraphQL endpoint, e.g. '/graphql'; the page is served there and queries go there. */
  endpoint: string;
  /** Query shown in the editor on first visit. */
  exampleQuery: string;
  /** Value prefilled for the x-api-key header; a placeholder asking for a key when absent. */
  defaultApiKey?: string;
}

/**
 * Headers (the API key) are not persisted: a key in localStorage outlives the session and is
 * readable by any script of this origin. Queries and tabs still are.
 *
 * Subscriptions go over WebSocket on the same path (graphql-ws, api/graphql/subscriptions): the
 * socket has no headers, so the x-api-key of the headers editor goes in `connection_init`, one
 * client per key (a changed key opens a new socket).
 */
const BOOTSTRAP_SCRIPT = `
const config = JSON.parse(document.getElementById('graphiql-config').textContent);
const httpFetcher = GraphiQL.createFetcher({ url: config.url });
const socketUrl = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + config.url;
const socketClients = new Map();
function socketClient(apiKey) {
  if (!socketClients.has(apiKey)) {
    socketClients.set(apiKey, graphqlWs.createClient({ url: socketUrl, connectionParams: { 'x-api-key': apiKey }, retryAttempts: 0 }));
  }
  return socketClients.get(apiKey);
}
function isSubscription(params, options) {
  const document = options && options.documentAST;
  if (!document) return /^\\s*subscription\\b/.test(params.query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition' && (!params.operationName || (d.name && d.name.value === params.operationName)));
  return Boolean(operation && operation.operation === 'subscription');
}
function fetcher(params, options) {
  if (!isSubscription(params, options)) return httpFetcher(params, options);
  const headers = (options && options.headers) || {};
  return socketClient(String(headers['x-api-key'] || '')).iterate(params);
}
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: config.query,
    defaultHeaders: config.headers,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: 'headers',
  }),
);
`;

export function graphiqlRouter(options: GraphiqlOptions): Router {
  const assets = new Map([
    ['react.production.min.js', packageAsset('react', 'umd/react.production.min.js')],
    ['react-dom.production.min.js', packageAsset('react-dom', 'umd/react-dom.production.min.js')],
    ['graphiql.min.js', packageAsset('graphiql', 'graphiql.min.js')],
    ['graphiql.min.css', packageAsset('graphiql', 'graphiql.min.css')],
    ['graphql-ws.min.js', packageAsset('graphql-ws', 'umd/graphql-ws.min.js')],
  ]);
  return staticPageRouter({
    path: options.endpoint,
    assets,
    bootstrapScript: BOOTSTRAP_SCRIPT,
    // A client that prefers an HTML page over a JSON answer (a browser navigating here).
    wants: (req: Request) => req.accepts(['application/json', 'text/html']) === 'text/html',
    render: (pageUrl, assetUrl) => {
      const config = {
        url: pageUrl,
        query: options.exampleQuery,
        headers: JSON.stringify({ 'x-api-key': options.defaultApiKey ?? 'paste your API key' }, null, 2),
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
<script src="${assetUrl('graphql-ws.min.js')}"></script>
<script>${BOOTSTRAP_SCRIPT}</script>
</body>
</html>
`;
    },
  });
}
