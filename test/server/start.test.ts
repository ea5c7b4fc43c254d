/**
 * `npm start` as a newcomer runs it: a real process on an empty data folder (PGlite) or on a
 * PostgreSQL database, becoming ready, printing the demo keys once with the port it listens on;
 * its access log; a port already taken.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { digestOf } from '../../src/features/auth/api-keys';
import { createScratchDatabase, type TestDatabase } from '../support/databases';
import { appProcessListening, appProcessReady, ROOT, startAppProcess, stopAppProcess } from '../support/app-process';
import { waitFor } from '../support/wait';

const start = startAppProcess;
const ready = appProcessReady;
const stop = stopAppProcess;
const demoKeys = (output: string) => [...output.matchAll(/vr_demo_[A-Za-z0-9_-]{32}/g)].map((m) => m[0]);

describe('npm start', () => {
  jest.setTimeout(300_000);

  it('on an empty DATA_DIR (PGlite): migrates, seeds, prints two demo keys once, serves, stops cleanly, keeps its data', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vr-start-'));
    try {
      const first = start({ DATA_DIR: dataDir, DATABASE_URL: '' });
      await ready(first);
      expect((await fetch(`http://127.0.0.1:${first.port}/healthz`)).status).toBe(200);
      const keys = [...new Set(demoKeys(first.output()))];
      expect(keys).toHaveLength(2);
      // PORT=0 (app-process.ts): the examples name the port the system chose, not 0.
      expect(first.output()).toContain(`curl -H 'x-api-key: ${keys[0]}' 'http://localhost:${first.port}/public/reports/?limit=2'`);
      const response = await fetch(`http://127.0.0.1:${first.port}/public/reports/?limit=1`, { headers: { 'x-api-key': keys[0]! } });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { total: number; items: unknown[] };
      expect(page.total).toBeGreaterThan(500);
      expect(page.items).toHaveLength(1);

      // With no SMTP or SMS provider configured, a lead's messages land in the local outbox file.
      const dealerships = (await (
        await fetch(`http://127.0.0.1:${first.port}/public/dealerships/`, { headers: { 'x-api-key': keys[0]! } })
      ).json()) as { items: { id: string }[] };
      const lead = await fetch(`http://127.0.0.1:${first.port}/public/reports/create-lead`, {
        method: 'POST',
        headers: { 'x-api-key': keys[0]!, 'content-type': 'application/json' },
        body: JSON.stringify({
          dealership: dealerships.items[0]!.id,
          name: 'Newcomer',
          email: 'newcomer@example.com',
          phone: '06 12 34 56 78',
          sendEmail: true,
          sendPhone: true,
        }),
      });
      expect(lead.status).toBe(201);
      const { token } = (await lead.json()) as { token: string };
      const outbox = path.join(dataDir, 'outbox.log');
      const lines = await waitFor(
        () => {
          const found = existsSync(outbox)
            ? readFileSync(outbox, 'utf8')
                .split('\n')
                .filter((l) => l.includes(token))
            : [];
          return found.length === 2 ? found : null;
        },
        15_000,
        100,
      );
      expect(lines!.join('\n')).toContain('newcomer@example.com');
      expect(lines!.join('\n')).toContain('+33612345678');
      expect(await stop(first)).toBe(0);

      const second = start({ DATA_DIR: dataDir, DATABASE_URL: '' });
      await ready(second);
      expect(demoKeys(second.output())).toEqual([]);
      const again = await fetch(`http://127.0.0.1:${second.port}/public/reports/?limit=1`, { headers: { 'x-api-key': keys[1]! } });
      expect(again.status).toBe(200);
      expect(await stop(second)).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('with DATABASE_URL: the same on a PostgreSQL server', async () => {
    const scratch: TestDatabase = await createScratchDatabase('postgres');
    try {
      const server = start({ DATABASE_URL: scratch.url! });
      await ready(server);
      const keys = [...new Set(demoKeys(server.output()))];
      expect(keys).toHaveLength(2);
      const response = await fetch(`http://127.0.0.1:${server.port}/public/dealerships/?limit=2`, { headers: { 'x-api-key': keys[0]! } });
      expect(response.status).toBe(200);
      const graphql = await fetch(`http://127.0.0.1:${server.port}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': keys[0]!, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ dealerships(limit: 1) { total } }' }),
      });
      expect(graphql.status).toBe(200);
      expect(await stop(server)).toBe(0);

      // The access log: one JSON line per request with its route template, status, duration and
      // organization; never the key, never the query string.
      const accessLines = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('"responseTime"'))
        .map(
          (line) =>
            JSON.parse(line) as {
              req: { id: string; route: string; method: string; path: string };
              res: { status: number };
              responseTime: number;
              organization_id?: string;
            },
        );
      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      const { rows } = await client.query<{ organization_id: string }>('SELECT organization_id FROM api_keys WHERE digest = $1', [
        digestOf(keys[0]!),
      ]);
      await client.end();
      const rest = accessLines.find((l) => l.req.route === '/public/dealerships/');
      const gql = accessLines.find((l) => l.req.route === '/graphql' && l.req.method === 'POST');
      for (const line of [rest, gql]) {
        expect(line).toMatchObject({ res: { status: 200 }, organization_id: rows[0]!.organization_id });
        expect(line!.responseTime).toBeGreaterThanOrEqual(0);
      }
      // The request's fields are exactly these (the serializers read the request themselves): its
      // id as the response's x-request-id, the path without its query string.
      expect(rest!.req).toEqual({
        id: response.headers.get('x-request-id'),
        method: 'GET',
        route: '/public/dealerships/',
        path: '/public/dealerships/',
      });
      expect(gql!.req).toEqual({ id: graphql.headers.get('x-request-id'), method: 'POST', route: '/graphql', path: '/graphql' });
      expect(Object.keys(rest!.res)).toEqual(['status']);
      expect(Object.keys(gql!.res)).toEqual(['status']);
      const logged = accessLines.map((l) => JSON.stringify(l)).join('\n');
      expect(logged).not.toContain(keys[0]!);
      expect(logged).not.toContain('limit=2');
    } finally {
      await scratch.drop();
    }
  });
  it("a port already taken (the API's or the metrics'): exits 1 saying so, and still prints the demo keys it seeded", async () => {
    const scratch: TestDatabase = await createScratchDatabase('postgres');
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const server = start({ DATABASE_URL: scratch.url!, PORT: String(port) });
      expect(await server.exited).toBe(1);
      expect(server.output()).toMatch(/"msg":"failed to start"/);
      expect(server.output()).toContain('EADDRINUSE');
      // The keys exist nowhere else: the next start finds the data seeded and prints none.
      expect(new Set(demoKeys(server.output())).size).toBe(2);

      // The same for the metrics' own port (METRICS_PORT).
      const metricsTaken = start({ DATABASE_URL: scratch.url!, METRICS_PORT: String(port) });
      expect(await metricsTaken.exited).toBe(1);
      expect(metricsTaken.output()).toMatch(/"msg":"failed to start"/);
      expect(metricsTaken.output()).toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await scratch.drop();
    }
  });
  it('MIGRATE_ON_START=false waits for `npm run db:migrate`; SHUTDOWN_DELAY_MS keeps serving while /readyz says 503', async () => {
    const scratch: TestDatabase = await createScratchDatabase('postgres');
    try {
      const server = start({ DATABASE_URL: scratch.url!, MIGRATE_ON_START: 'false', SHUTDOWN_DELAY_MS: '3000' });
      await appProcessListening(server);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${server.port}/healthz`).catch(() => null))?.status === 200, 30_000, 200);
      const before = await fetch(`http://127.0.0.1:${server.port}/readyz`);
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({ checks: { database: true, migrations: false } });

      const migrate = spawnSync(process.execPath, ['--import', 'tsx', 'src/app/migrate-cli.ts'], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: scratch.url!, NODE_OPTIONS: '' },
        encoding: 'utf8',
      });
      expect(migrate.status).toBe(0);
      await ready(server);

      server.child.kill('SIGTERM');
      await waitFor(async () => (await fetch(`http://127.0.0.1:${server.port}/readyz`)).status === 503, 2_000, 50);
      // Draining: not ready, but still answering.
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
      expect(await server.exited).toBe(0);
    } finally {
      await scratch.drop();
    }
  });
});
