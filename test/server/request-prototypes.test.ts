/**
 * The HTTP server makes each request and response with the express app's prototypes
 * (platform/http/http-server.ts): express's own `Object.setPrototypeOf` on every request then
 * changes nothing, which kept each request's objects out of the old generation (the figures are in
 * bench/HISTORY.md). Checked before express sees the request, over real HTTP, with express's
 * request and response helpers still working; a listener that is not an express app gets Node's.
 */
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import express from 'express';
import { createHttpServer, listen } from '../../src/platform/http/http-server';

async function serve(server: Server, seen: unknown[][], run: (url: string) => Promise<void>): Promise<void> {
  // Before the app's own listener: what the server made, not what express turned it into.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push([Object.getPrototypeOf(req), Object.getPrototypeOf(res), req instanceof IncomingMessage, res instanceof ServerResponse]);
  });
  const port = await listen(server, 0, '127.0.0.1');
  try {
    await run(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('the request and response objects of the HTTP server', () => {
  it("are made with an express app's prototypes, and express's helpers work on them", async () => {
    const app = express();
    app.get('/echo/:name', (req, res) => {
      res.status(201).json({ name: req.params.name, query: req.query, path: req.path, accepts: req.accepts('json') });
    });
    const seen: unknown[][] = [];
    await serve(createHttpServer(app, { requestTimeoutMs: 5_000 }), seen, async (url) => {
      for (const name of ['one', 'two']) {
        const answer = await fetch(`${url}/echo/${name}?x=1`, { headers: { accept: 'application/json' } });
        expect(answer.status).toBe(201);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await answer.json()).toEqual({ name, query: { x: '1' }, path: `/echo/${name}`, accepts: 'json' });
      }
    });
    expect(seen).toEqual([
      [app.request, app.response, true, true],
      [app.request, app.response, true, true],
    ]);
  });

  it('are Node’s own for a listener that is not an express app', async () => {
    const seen: unknown[][] = [];
    await serve(
      createHttpServer((_req, res) => res.end('plain'), { requestTimeoutMs: 5_000 }),
      seen,
      async (url) => {
        expect(await (await fetch(url)).text()).toBe('plain');
      },
    );
    expect(seen).toEqual([[IncomingMessage.prototype, ServerResponse.prototype, true, true]]);
  });
});
