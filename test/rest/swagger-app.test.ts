/**
 * The real application's /docs in headless Chromium: Swagger UI loads the generated
 * /openapi.json and renders the six REST operations of the spec and the change feed, with nothing fetched beyond 127.0.0.1.
 */
import type { Browser } from 'playwright-core';
import { artifactPath, launchChromium, leavesLoopback, watchPage } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

const EXPECTED_OPERATIONS = [
  'GET /public/reports/',
  'GET /public/reports/{report_id}',
  'POST /public/reports/create-lead',
  'GET /public/users/',
  'GET /public/users/{user_id}',
  'GET /public/dealerships/',
  'GET /public/events/',
];

describe.each(['pglite', 'postgres'] as const)('Swagger UI of the real app (%s)', (kind) => {
  let server: TestServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startTestServer(kind, { reports: 10 });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('serves the generated document at /openapi.json as JSON', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(doc.info.title).toBe('Vehicle Report Public API');
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(EXPECTED_OPERATIONS.map((op) => op.split(' ')[1]))].sort());
    // Revalidated, not downloaded again: its ETag is computed once, and If-None-Match gets a 304.
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    // fetch() adds `Cache-Control: no-cache` to a conditional request unless it has one: a reload, which is never a 304.
    const again = await fetch(`${server.url}/openapi.json`, { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('renders the six operations and the change feed from /openapi.json without any request leaving 127.0.0.1', async () => {
    if (!browser) throw new Error('Chromium did not start');
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const { requests, problems } = watchPage(page);

    try {
      await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
      // Until the last expected operation is there, by a locator: waitForFunction's polling compiles its
      // predicate in the page, which the CSP forbids (a race Playwright loses now and then: microsoft/playwright#36986).
      await page
        .locator('.opblock .opblock-summary')
        .nth(EXPECTED_OPERATIONS.length - 1)
        .waitFor();
      const operations = await page.locator('.opblock .opblock-summary').evaluateAll((elements) =>
        elements.map((element) => {
          const method = element.querySelector('.opblock-summary-method')?.textContent ?? '?';
          const pathElement = element.querySelector('.opblock-summary-path');
          const operationPath = pathElement?.getAttribute('data-path') ?? pathElement?.textContent ?? '?';
          return `${method} ${operationPath}`;
        }),
      );
      expect([...operations].sort()).toEqual([...EXPECTED_OPERATIONS].sort());
      await expect(page.locator('.info .title').innerText()).resolves.toContain('Vehicle Report Public API');
      await expect(page.locator('button.authorize').count()).resolves.toBe(1);

      // Open the reports list: its parameters come from the schema (limit with its default).
      await page.locator('#operations-reports-reports .opblock-summary').click();
      await page.waitForSelector('#operations-reports-reports tr[data-param-name="limit"]');
      const limitRow = await page.locator('#operations-reports-reports tr[data-param-name="limit"]').innerText();
      expect(limitRow).toContain('100');

      await page.screenshot({ path: artifactPath(kind === 'pglite' ? 'swagger-app.png' : `swagger-app-${kind}.png`), fullPage: true });

      expect(problems).toEqual([]);
      expect(requests.some((url) => url === `${server.url}/openapi.json`)).toBe(true);
      expect(requests.filter(leavesLoopback)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
