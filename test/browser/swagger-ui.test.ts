/**
 * Swagger UI page in a real headless Chromium: it must load only from this service and render
 * every operation of the OpenAPI document.
 *
 * The document is a static stand-in defined here, so the test exercises the router alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser } from 'playwright-core';
import { artifactPath, launchChromium, leavesLoopback, watchPage } from '../support/browser';
import { swaggerUiRouter } from '../../src/api/openapi/swagger-ui';

const ok = { '200': { description: 'OK' } };
const tokenParameter = { name: 'token', in: 'path', required: true, schema: { type: 'string' } };

/** Six operations over four paths, secured by an API key like the real API. */
const OPENAPI_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Vehicle Report API (test stand-in)', version: '1.0.0' },
  servers: [{ url: '/public' }],
  components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
  security: [{ apiKey: [] }],
  paths: {
    '/reports/': {
      get: { operationId: 'listReports', tags: ['reports'], summary: 'List reports', responses: ok },
      post: { operationId: 'createReport', tags: ['reports'], summary: 'Create a report', responses: ok },
    },
    '/reports/{token}': {
      get: { operationId: 'getReport', tags: ['reports'], parameters: [tokenParameter], responses: ok },
      delete: { operationId: 'deleteReport', tags: ['reports'], parameters: [tokenParameter], responses: ok },
    },
    '/vehicles/{vin}/reports': {
      get: {
        operationId: 'vehicleReports',
        tags: ['vehicles'],
        parameters: [{ name: 'vin', in: 'path', required: true, schema: { type: 'string' } }],
        responses: ok,
      },
    },
    '/organizations/me': {
      get: { operationId: 'currentOrganization', tags: ['organizations'], responses: ok },
    },
  },
} as const;

const EXPECTED_OPERATIONS = [
  'GET /reports/',
  'POST /reports/',
  'GET /reports/{token}',
  'DELETE /reports/{token}',
  'GET /vehicles/{vin}/reports',
  'GET /organizations/me',
];

function createTestApp(): express.Express {
  const app = express();
  app.use(swaggerUiRouter({ path: '/docs', openApiUrl: '/openapi.json' }));
  app.get('/openapi.json', (_req, res) => {
    res.json(OPENAPI_DOCUMENT);
  });
  return app;
}

async function listen(app: express.Express): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

describe('Swagger UI page', () => {
  let server: Server;
  let baseUrl: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    ({ server, baseUrl } = await listen(createTestApp()));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  describe('over HTTP', () => {
    it('serves the page with a self-only CSP and versioned asset URLs', async () => {
      const res = await fetch(`${baseUrl}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(csp).not.toMatch(/https?:|\*/);
      const html = await res.text();
      expect(html).toMatch(/\/docs\/assets\/swagger-ui-bundle\.js\?v=5\.\d+\.\d+/);
      expect(html).toContain('"url":"/openapi.json"');
      expect(html).not.toContain('petstore');
    });

    it('serves only the listed swagger-ui-dist files, with long cache headers', async () => {
      const files = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-16x16.png', 'favicon-32x32.png'];
      for (const name of files) {
        const res = await fetch(`${baseUrl}/docs/assets/${name}`);
        expect([name, res.status]).toEqual([name, 200]);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        await res.arrayBuffer();
      }
      for (const probe of ['', 'index.html', 'swagger-initializer.js', 'swagger-ui-bundle.js.map', 'package.json', '..%2Fpackage.json']) {
        const res = await fetch(`${baseUrl}/docs/assets/${probe}`);
        expect([probe, res.status]).toEqual([probe, 404]);
        await res.arrayBuffer();
      }
    });
  });

  describe('in headless Chromium', () => {
    beforeAll(async () => {
      browser = await launchChromium();
    });

    it('renders the six operations without any request leaving 127.0.0.1', async () => {
      if (!browser) throw new Error('Chromium did not start');
      const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
      const page = await context.newPage();
      const { requests, problems } = watchPage(page);

      try {
        await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
        const summaries = page.locator('.opblock .opblock-summary');
        // By a locator: waitForFunction's polling compiles its predicate in the page, which the CSP forbids
        // (a race Playwright loses now and then: microsoft/playwright#36986).
        await summaries.nth(EXPECTED_OPERATIONS.length - 1).waitFor();
        const operations = await summaries.evaluateAll(
          // Runs in the page: read the method badge and the path Swagger UI rendered.
          (elements) =>
            elements.map((element) => {
              const method = element.querySelector('.opblock-summary-method')?.textContent ?? '?';
              const pathElement = element.querySelector('.opblock-summary-path');
              const path = pathElement?.getAttribute('data-path') ?? pathElement?.textContent ?? '?';
              return `${method} ${path}`;
            }),
        );
        expect([...operations].sort()).toEqual([...EXPECTED_OPERATIONS].sort());
        await expect(page.locator('.info .title').innerText()).resolves.toContain('Vehicle Report API (test stand-in)');
        // The API-key scheme is there to be filled in (and persisted, persistAuthorization).
        await expect(page.locator('button.authorize').count()).resolves.toBe(1);

        await page.screenshot({ path: artifactPath('swagger-ui.png'), fullPage: true });

        expect(problems).toEqual([]);
        expect(requests.some((url) => url.endsWith('/openapi.json'))).toBe(true);
        expect(requests.filter(leavesLoopback)).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
});
