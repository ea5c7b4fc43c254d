/**
 * The access log over real HTTP (src/platform/http/access-log.ts): one line per request when its
 * response ends or its connection closes first, at the level its status calls for, with pino-http's
 * shape (which it replaced) so collectors see no change; probes and scrapes unlogged; the request
 * id echoed; the request's own logger carrying the request. The loggers are watched (their
 * methods wrapped and still called), not replaced.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import net from 'node:net';
import express from 'express';
import { accessLog, recordOrganization, recordRoute, requestLogger } from '../../src/platform/http/access-log';
import { accessLogger, configureLogging, logger } from '../../src/platform/logger';
import { waitFor } from '../support/wait';

type Line = { level: 'info' | 'warn' | 'error'; fields: Record<string, unknown>; message: string };

describe('access log', () => {
  let server: Server;
  let base: string;
  const lines: Line[] = [];
  const spies: jest.SpyInstance[] = [];

  beforeAll(async () => {
    // The access lines' own logger at info, the process's for lines with an error or a 5xx.
    for (const [watched, level] of [
      [accessLogger, 'info'],
      [logger, 'warn'],
      [logger, 'error'],
    ] as const) {
      const original = watched[level].bind(watched);
      spies.push(
        jest.spyOn(watched, level).mockImplementation(((fields: Record<string, unknown>, message: string) => {
          if (typeof fields === 'object' && fields !== null && 'responseTime' in fields) lines.push({ level, fields, message });
          return original(fields, message);
        }) as never),
      );
    }
    const app = express();
    app.use((_req, res, next) => {
      // What api/request-route.ts does for the routes it knows.
      if (_req.path === '/public/reports/x') recordRoute(res, '/public/reports/{report_id}');
      next();
    });
    app.use(accessLog());
    app.get('/public/reports/x', (_req, res) => {
      recordOrganization(res, 'org-1');
      res.json({ ok: true });
    });
    app.get('/down', (_req, res) => void res.status(503).json({ detail: 'down' }));
    app.get('/boom', (_req, res) => void res.status(500).json({ detail: 'boom' }));
    app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
    app.get('/hang', () => undefined);
    app.get('/own-logger', (req, res) => {
      res.json({ bindings: requestLogger(req).bindings() });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await new Promise((resolve) => server.close(resolve));
  });

  const lineFor = async (path: string): Promise<Line> =>
    (await waitFor(() => lines.find((l) => (l.fields.req as { path: string }).path === path)))!;

  it('a served request: one info line, the route template, the path without its query, the status, the organization', async () => {
    const response = await fetch(`${base}/public/reports/x?vin=SECRET`, { headers: { 'x-request-id': 'abc-123' } });
    expect(response.headers.get('x-request-id')).toBe('abc-123');
    const line = await lineFor('/public/reports/x');
    expect(line).toMatchObject({ level: 'info', message: 'request completed' });
    expect(line.fields).toEqual({
      req: { id: 'abc-123', method: 'GET', route: '/public/reports/{report_id}', path: '/public/reports/x' },
      res: { status: 200 },
      responseTime: expect.any(Number) as number,
      organization_id: 'org-1',
    });
    expect(JSON.stringify(line)).not.toContain('SECRET');
    expect(lines.filter((l) => (l.fields.req as { path: string }).path === '/public/reports/x')).toHaveLength(1);
  });

  it('an id that is not sane is replaced by a new one, echoed and logged', async () => {
    const response = await fetch(`${base}/down`, { headers: { 'x-request-id': 'no spaces <allowed>' } });
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const line = await lineFor('/down');
    // A 503 is a deliberate answer: a warning, its cause logged where it was decided.
    expect(line).toMatchObject({
      level: 'warn',
      message: 'request errored',
      fields: { req: { id, route: 'unmatched' }, res: { status: 503 } },
    });
  });

  it('another 5xx is an error line', async () => {
    await fetch(`${base}/boom`);
    expect(await lineFor('/boom')).toMatchObject({ level: 'error', message: 'request errored', fields: { res: { status: 500 } } });
  });

  it('a client gone before the answer: one line, "request aborted"', async () => {
    const { port } = new URL(base);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    expect(await lineFor('/hang')).toMatchObject({ level: 'info', message: 'request aborted' });
  });

  it('probes are not logged; the request logger carries the request', async () => {
    await fetch(`${base}/healthz`);
    const { bindings } = (await (await fetch(`${base}/own-logger`)).json()) as { bindings: { req: Record<string, unknown> } };
    expect(bindings.req).toMatchObject({ method: 'GET', path: '/own-logger' });
    await lineFor('/own-logger');
    expect(lines.some((l) => (l.fields.req as { path: string }).path === '/healthz')).toBe(false);
  });

  it("the access lines follow the configured level, as the process's lines do", () => {
    const before = logger.level;
    try {
      configureLogging({ level: 'warn' });
      expect(accessLogger.isLevelEnabled('info')).toBe(false);
      configureLogging({ level: 'debug' });
      expect(accessLogger.isLevelEnabled('info')).toBe(true);
    } finally {
      configureLogging({ level: before });
    }
  });
});
