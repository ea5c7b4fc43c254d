/**
 * Security headers on every response (helmet), with the two HTML pages keeping the CSP they need,
 * and CORS: off by default; with CORS_ORIGINS, exact origins only, preflights answered without an
 * API key and without touching the rate limit; checked over HTTP and in a real Chromium, where
 * the browser itself decides what a page of another origin may call and read.
 *
 * No database behaviour is involved: PGlite only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/app/config';
import { launchChromium } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

const HELMET_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': expect.stringMatching(/^max-age=\d+/),
};
const API_CSP = "default-src 'none';frame-ancestors 'none'";

function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries(response.headers.entries());
}

describe('security headers (CORS off, the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('pglite', { reports: 5 });
  });
  afterAll(() => server.close());

  it('puts the helmet headers and a deny-all CSP on every JSON response, errors and probes included', async () => {
    const key = { 'x-api-key': server.keys[0]! };
    const requests: [string, RequestInit, number][] = [
      ['/public/dealerships/', { headers: key }, 200],
      ['/public/dealerships/', {}, 401],
      ['/public/nowhere', { headers: key }, 404],
      ['/nowhere', {}, 404],
      [
        '/graphql',
        { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"query":"{ dealerships { total } }"}' },
        200,
      ],
      ['/openapi.json', {}, 200],
      ['/healthz', {}, 200],
      ['/readyz', {}, 200],
      [`/public/reports/?search=${'a'.repeat(9000)}`, {}, 414],
    ];
    for (const [path, init, status] of requests) {
      const response = await fetch(`${server.url}${path}`, init);
      expect([path.slice(0, 40), response.status]).toEqual([path.slice(0, 40), status]);
      const headers = headersOf(response);
      expect(headers).toMatchObject({ ...HELMET_HEADERS, 'content-security-policy': API_CSP });
      expect(headers).not.toHaveProperty('x-powered-by');
      await response.arrayBuffer();
    }
    // /metrics, where served, is no exception (its status depends on its own configuration).
    const metrics = await fetch(`${server.url}/metrics`);
    expect(headersOf(metrics)).toMatchObject(HELMET_HEADERS);
    await metrics.arrayBuffer();
  });

  it('keeps the pages’ own CSP on GraphiQL and Swagger UI (self-only scripts plus one hashed inline script), with the other headers', async () => {
    const pages = [await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } }), await fetch(`${server.url}/docs`)];
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(csp).toContain("connect-src 'self'");
      expect(csp).not.toMatch(/default-src 'none'/);
      expect(headersOf(page)).toMatchObject(HELMET_HEADERS);
      await page.text();
    }
  });

  it('sends no CORS headers, to simple requests or preflights', async () => {
    const simple = await fetch(`${server.url}/public/dealerships/`, {
      headers: { origin: 'https://crm.example.com', 'x-api-key': server.keys[0]! },
    });
    expect(simple.status).toBe(200);
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${server.url}/public/dealerships/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://crm.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    await preflight.arrayBuffer();
  });
});

describe('CORS_ORIGINS', () => {
  it('is off when unset; takes `*` or exact origins; refuses what a browser would never send as an origin', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: ' https://crm.example.com, http://127.0.0.1:8080 ' }).corsOrigins).toEqual([
      'https://crm.example.com',
      'http://127.0.0.1:8080',
    ]);
    for (const bad of ['https://crm.example.com/', 'crm.example.com', 'https://crm.example.com/app', 'https://CRM.example.com']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });
});

describe('CORS with CORS_ORIGINS set', () => {
  const ALLOWED = 'https://crm.example.com';
  /** A page server for the browser test; its origin is allowed as 127.0.0.1, not as localhost. */
  let pages: Server;
  let pageOrigin: string;
  let server: TestServer;
  let anyOrigin: TestServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>CRM</title>'));
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    server = await startTestServer('pglite', {
      reports: 5,
      // A small budget, to show that preflights do not spend it.
      config: {
        corsOrigins: [ALLOWED, pageOrigin],
        rateLimits: { requestsPerMinute: 10, leadsPerMinute: 10, anonymousPerMinute: 1_000_000 },
      },
    });
    anyOrigin = await startTestServer('pglite', { reports: 5, config: { corsOrigins: '*' } });
    browser = await launchChromium();
    // Two apps and a browser: slow to start on a busy 2-core machine.
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await anyOrigin?.close();
    await new Promise<void>((resolve) => pages.close(() => resolve()));
  });

  const preflight = (target: TestServer, path: string, origin: string, method = 'GET', headers = 'x-api-key') =>
    fetch(`${target.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });

  it('answers preflights from an allowed origin with 204, without an API key and without spending the rate limit', async () => {
    for (let i = 0; i < 8; i += 1) {
      for (const [path, method] of [
        ['/public/reports/', 'GET'],
        ['/public/reports/create-lead', 'POST'],
        ['/graphql', 'POST'],
      ] as const) {
        const response = await preflight(server, path, ALLOWED, method, 'x-api-key,content-type,x-request-id,idempotency-key');
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
        expect(response.headers.get('access-control-allow-headers')).toBe('x-api-key,content-type,x-request-id,idempotency-key');
        expect(response.headers.get('access-control-allow-methods')).toBe('GET,POST');
        expect(response.headers.get('access-control-max-age')).toBe('600');
        expect(response.headers.get('vary')).toMatch(/origin/i);
        expect(response.headers.get('ratelimit')).toBeNull();
      }
    }
    // 24 preflights later, the key's budget of 10 is untouched.
    const first = await fetch(`${server.url}/public/dealerships/`, { headers: { origin: ALLOWED, 'x-api-key': server.keys[0]! } });
    expect(first.status).toBe(200);
    // Only the GET was charged: a dealerships page costs 2 of the 10 points, the preflight nothing.
    expect(first.headers.get('ratelimit')).toMatch(/^"requests";r=8;/);
  });

  it('lets an allowed origin read the request id and rate limit headers, and tells other origins nothing', async () => {
    const allowed = await fetch(`${server.url}/public/dealerships/`, { headers: { origin: ALLOWED, 'x-api-key': server.keys[1]! } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-expose-headers')).toBe('x-request-id,retry-after,ratelimit,ratelimit-policy');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

    for (const other of ['https://evil.example.com', 'https://crm.example.com.evil.com', 'http://crm.example.com']) {
      const refused = await preflight(server, '/public/reports/', other);
      expect([other, refused.headers.get('access-control-allow-origin')]).toEqual([other, null]);
      const simple = await fetch(`${server.url}/healthz`, { headers: { origin: other } });
      expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('allows any origin with CORS_ORIGINS=*', async () => {
    const response = await preflight(anyOrigin, '/graphql', 'https://anything.example', 'POST', 'content-type,x-api-key');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('works in Chromium: a page of an allowed origin calls REST and GraphQL and reads the exposed headers; another origin cannot', async () => {
    if (!browser) throw new Error('Chromium did not start');
    const context = await browser.newContext();
    const page = await context.newPage();
    const call = (apiUrl: string, apiKey: string) =>
      page.evaluate(
        async ([url, key]) => {
          try {
            const rest = await fetch(`${url}/public/dealerships/`, { headers: { 'x-api-key': key, 'x-request-id': 'from-the-browser' } });
            const graphql = await fetch(`${url}/graphql`, {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'k-1' },
              body: JSON.stringify({ query: '{ dealerships { total } }' }),
            });
            return {
              rest: rest.status,
              requestId: rest.headers.get('x-request-id'),
              ratelimit: rest.headers.get('ratelimit'),
              policy: rest.headers.get('ratelimit-policy'),
              total: ((await graphql.json()) as { data: { dealerships: { total: number } } }).data.dealerships.total,
            };
          } catch (error) {
            return { error: String(error) };
          }
        },
        [apiUrl, apiKey] as const,
      );
    try {
      await page.goto(`${pageOrigin}/`);
      const allowed = await call(server.url, server.keys[1]!);
      expect(allowed).toEqual({
        rest: 200,
        requestId: 'from-the-browser',
        ratelimit: expect.stringMatching(/^"requests";r=\d+;t=\d+$/),
        policy: '"requests";q=10;w=60',
        total: expect.any(Number),
      });

      // Same page server, another origin (localhost is not 127.0.0.1): the browser refuses.
      await page.goto(pageOrigin.replace('127.0.0.1', 'localhost'));
      expect(await call(server.url, server.keys[1]!)).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    } finally {
      await context.close();
    }
  });
});
