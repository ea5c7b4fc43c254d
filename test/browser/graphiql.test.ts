/**
 * GraphiQL page in a real headless Chromium: it must load only from this service, show the
 * example query, run it and forward the x-api-key header from its headers editor.
 *
 * The backend is a stand-in defined here (a one-field graphql-js schema), so the test exercises
 * the router alone, not Apollo or the database.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { buildSchema, graphql } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Browser } from 'playwright-core';
import { artifactPath, launchChromium, leavesLoopback, watchPage } from '../support/browser';
import { waitFor } from '../support/wait';
import { graphiqlRouter } from '../../src/api/graphql/graphiql';

const API_KEY = 'test-key-123';
const EXAMPLE_QUERY = 'query Hello {\n  hello(name: "Ada")\n}';
const EXPECTED_RESULT = { data: { hello: `Hello, Ada (x-api-key: ${API_KEY})` } };

const schema = buildSchema('type Query { hello(name: String): String } type Subscription { greetings: String }');
const SUBSCRIPTION = 'subscription Greetings {\n  greetings\n}';

interface GraphqlBody {
  query?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** The router under test plus a stand-in for Apollo that echoes the forwarded API key. */
function createTestApp(seenApiKeys: (string | undefined)[]): express.Express {
  const app = express();
  app.use(graphiqlRouter({ endpoint: '/graphql', exampleQuery: EXAMPLE_QUERY, defaultApiKey: API_KEY }));
  // Where Apollo answers JSON GET requests in the real service.
  app.get('/graphql', (_req, res) => {
    res.json({ handledBy: 'backend' });
  });
  app.post('/graphql', express.json(), async (req, res) => {
    const body = req.body as GraphqlBody;
    const apiKey = req.get('x-api-key');
    seenApiKeys.push(apiKey);
    const result = await graphql({
      schema,
      source: body.query ?? '',
      variableValues: body.variables,
      operationName: body.operationName,
      rootValue: { hello: ({ name }: { name?: string }) => `Hello, ${name ?? 'world'} (x-api-key: ${apiKey ?? 'none'})` },
    });
    res.json(result);
  });
  return app;
}

async function listen(app: express.Express): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(app);
  // A stand-in for the subscription server: greets with the key of the connection_init payload.
  const sockets = new WebSocketServer({ server, path: '/graphql' });
  useServer(
    {
      schema,
      roots: {
        subscription: {
          greetings: async function* (_args: unknown, context: { connectionParams?: Record<string, unknown> }) {
            for (const n of [1, 2]) yield { greetings: `greeting ${n} (x-api-key: ${String(context.connectionParams?.['x-api-key'])})` };
          },
        },
      },
      context: (ctx) => ({ connectionParams: ctx.connectionParams }),
    },
    sockets,
  );
  server.on('close', () => sockets.close());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

describe('GraphiQL page', () => {
  const seenApiKeys: (string | undefined)[] = [];
  let server: Server;
  let baseUrl: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    ({ server, baseUrl } = await listen(createTestApp(seenApiKeys)));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  describe('over HTTP', () => {
    it('serves the page only to clients preferring HTML, with a self-only CSP', async () => {
      const page = await fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
      // No origin other than 'self' anywhere in the policy.
      expect(csp).not.toMatch(/https?:|\*/);
      const html = await page.text();
      const { version: graphiqlVersion } = JSON.parse(readFileSync(require.resolve('graphiql/package.json'), 'utf8')) as {
        version: string;
      };
      expect(html).toContain(`/graphql/assets/graphiql.min.js?v=${graphiqlVersion}`);

      const json = await fetch(`${baseUrl}/graphql?query=%7B__typename%7D`, { headers: { accept: 'application/json' } });
      expect(await json.json()).toEqual({ handledBy: 'backend' });
      const noAccept = await fetch(`${baseUrl}/graphql`, { headers: { accept: '*/*' } });
      expect(await noAccept.json()).toEqual({ handledBy: 'backend' });
    });

    it('serves the five assets with long cache headers and nothing else', async () => {
      for (const name of [
        'react.production.min.js',
        'react-dom.production.min.js',
        'graphiql.min.js',
        'graphiql.min.css',
        'graphql-ws.min.js',
      ]) {
        const res = await fetch(`${baseUrl}/graphql/assets/${name}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('content-type')).toMatch(name.endsWith('.css') ? /^text\/css/ : /javascript/);
        await res.arrayBuffer();
      }
      for (const probe of [
        '',
        'graphiql.min.js.map',
        'package.json',
        '..%2Fpackage.json',
        '%2e%2e%2Fgraphiql%2Fpackage.json',
        '__proto__',
      ]) {
        const res = await fetch(`${baseUrl}/graphql/assets/${probe}`);
        expect([probe, res.status]).toEqual([probe, 404]);
        await res.arrayBuffer();
      }
    });
  });

  describe('in headless Chromium', () => {
    beforeAll(async () => {
      browser = await launchChromium();
    });

    it('shows the example query, runs it and forwards the x-api-key header', async () => {
      if (!browser) throw new Error('Chromium did not start');
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const { requests, problems } = watchPage(page);

      try {
        await page.goto(`${baseUrl}/graphql`, { waitUntil: 'load' });
        await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
        const query = await page.evaluate<string>("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()");
        expect(query).toBe(EXAMPLE_QUERY);

        // The headers tab is open and prefilled with the default key.
        const headersTab = page.getByRole('button', { name: 'Headers' });
        await expect(headersTab.getAttribute('class')).resolves.toContain('active');
        const visibleToolText = await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)').innerText();
        expect(visibleToolText).toContain(`"x-api-key": "${API_KEY}"`);

        await page.locator('button.graphiql-execute-button').click();
        const expected = JSON.stringify(EXPECTED_RESULT.data.hello);
        // Polled from here: waitForFunction's polling compiles its predicate in the page, which the CSP forbids.
        await waitFor(
          async () =>
            (await page.evaluate<string>("document.querySelector('.result-window .CodeMirror')?.CodeMirror.getValue() ?? ''")).includes(
              expected,
            ),
          15_000,
          100,
        );
        const result = await page.evaluate<string>("document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()");
        expect(JSON.parse(result)).toEqual(EXPECTED_RESULT);
        // Introspection and the query itself both carried the key.
        expect(seenApiKeys.length).toBeGreaterThanOrEqual(2);
        expect(seenApiKeys.every((key) => key === API_KEY)).toBe(true);

        await page.screenshot({ path: artifactPath('graphiql.png') });

        expect(problems).toEqual([]);
        expect(requests.length).toBeGreaterThanOrEqual(6); // page, 5 assets (+ POSTs)
        expect(requests.filter(leavesLoopback)).toEqual([]);
      } finally {
        await context.close();
      }
    });

    it('runs a subscription over WebSocket, the key of the headers editor in connection_init', async () => {
      if (!browser) throw new Error('Chromium did not start');
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const { problems } = watchPage(page);
      try {
        await page.goto(`${baseUrl}/graphql`, { waitUntil: 'load' });
        await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
        await page.evaluate(
          `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(${JSON.stringify(SUBSCRIPTION)})`,
        );
        // GraphiQL takes the editor's text into its state after a debounce: run once it has.
        await page.waitForTimeout(500);
        await page.locator('button.graphiql-execute-button').click();
        const expected = `greeting 2 (x-api-key: ${API_KEY})`;
        // Polled from here: waitForFunction's polling compiles its predicate in the page, which the CSP forbids.
        const resultText = () => page.evaluate<string>("document.querySelector('.result-window .CodeMirror')?.CodeMirror.getValue() ?? ''");
        await waitFor(async () => (await resultText()).includes(expected), 15_000, 100).catch(async (error: Error) => {
          throw new Error(`${error.message}; the result window shows: ${await resultText()}`);
        });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
