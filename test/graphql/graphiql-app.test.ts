/**
 * The REAL application's GraphiQL page in headless Chromium: served on /graphql in front of Apollo,
 * it runs its example query with a demo key typed into the headers editor and shows real report
 * data from the seeded database, loading nothing from outside this machine.
 * (test/browser/graphiql.test.ts covers the router alone, against a stand-in backend.)
 */
import type { Browser } from 'playwright-core';
import { artifactPath, launchChromium, leavesLoopback, watchPage } from '../support/browser';
import { GRAPHIQL_EXAMPLE_QUERY } from '../../src/api/graphql/example-query';
import { startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { reportsOf } from './expected';

interface ExampleResult {
  data: {
    reports: {
      total: number;
      items: { token: string; dealership: { name: string } | null; profile: { name: string } | null; organization: { name: string } }[];
    };
    counterInspections: {
      items: {
        token: string;
        counter: { token: string; data: { vehicle: { vin: string } }; state: { folder_created: { status: boolean } } };
      }[];
    };
  };
}

describe.each(['pglite', 'postgres'] as const)('GraphiQL on the real app (%s)', (kind) => {
  let server: TestServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    server = await startTestServer(kind, { reports: 200 });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('still answers API clients on /graphql with JSON', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': server.keys[0]! },
      body: JSON.stringify({ query: '{ reports(limit: 1) { total } }' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { reports: { total: reportsOf(server.dataset, server.dataset.organizations[0]!.id).length } },
    });
  });

  it('runs the example query with a demo key and shows real reports', async () => {
    if (!browser) throw new Error('Chromium did not start');
    const organization = server.dataset.organizations[0]!;
    const reports = reportsOf(server.dataset, organization.id);
    const latestCounter = reports.find((r) => r.type === 'counter_inspection')!;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const { requests, problems } = watchPage(page);

    try {
      await page.goto(`${server.url}/graphql`, { waitUntil: 'load' });
      await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
      const query = await page.evaluate<string>("document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.getValue()");
      expect(query).toBe(GRAPHIQL_EXAMPLE_QUERY);

      // Type the key as a user would: replace the placeholder in the (open) headers editor.
      const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
      await page.locator(headersEditor).waitFor();
      await expect(page.locator(headersEditor).innerText()).resolves.toContain('paste your API key');
      await page.evaluate(
        ([selector, headers]) => {
          const editor = document.querySelector(selector) as unknown as { CodeMirror: { setValue(value: string): void } };
          editor.CodeMirror.setValue(headers);
        },
        [headersEditor, JSON.stringify({ 'x-api-key': server.keys[0] }, null, 2)] as const,
      );

      await page.locator('button.graphiql-execute-button').click();
      // Polled from here: waitForFunction's polling compiles its predicate in the page (a function is
      // sent as text too), which the CSP forbids, a race Playwright loses now and then (microsoft/playwright#36986).
      await waitFor(
        async () =>
          (await page.evaluate<string>("document.querySelector('.result-window .CodeMirror')?.CodeMirror.getValue() ?? ''")).includes(
            latestCounter.counter_id!,
          ),
        20_000,
        100,
      );
      const shown = JSON.parse(
        await page.evaluate<string>("document.querySelector('.result-window .CodeMirror').CodeMirror.getValue()"),
      ) as ExampleResult;

      expect(shown.data.reports.total).toBe(reports.length);
      expect(shown.data.reports.items.map((r) => r.token)).toEqual(reports.slice(0, 5).map((r) => r.token));
      expect(shown.data.reports.items.every((r) => r.organization.name === organization.name && r.dealership !== null)).toBe(true);
      const original = server.dataset.reports.find((r) => r.token === latestCounter.counter_id)!;
      expect(shown.data.counterInspections.items).toEqual([
        expect.objectContaining({
          token: latestCounter.token,
          counter: expect.objectContaining({
            token: original.token,
            data: { vehicle: expect.objectContaining({ vin: original.data.vehicle.vin }) },
          }),
        }),
      ]);

      await page.screenshot({ path: artifactPath(kind === 'pglite' ? 'graphiql-app.png' : `graphiql-app-${kind}.png`) });

      expect(problems).toEqual([]);
      expect(requests.some((url) => url.includes('/graphql/assets/graphiql.min.js'))).toBe(true);
      expect(requests.filter(leavesLoopback)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
