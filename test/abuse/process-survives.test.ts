/**
 * No request can end the process (issue: cost follows work, N0). One ordinary keyed query used to:
 * graphql-js 16 abandoned the promises of a list's earlier items when a later item's argument
 * check threw synchronously, and their rejections, unhandled, ended Node. Run against the real
 * process (`src/app/main.ts`), as production runs it, on both databases.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appProcessReady, demoKeysIn, ROOT, startAppProcess, stopAppProcess, type AppProcess } from '../support/app-process';
import { createScratchDatabase, type TestDatabase } from '../support/databases';

/** Demo data: users 0-5 have a dealership (a promise per item), user 6 has none (no promise). */
const N0 = '{ users { items { dealership { name } reports(order_by: ",") { total } } } }';

const post = (app: AppProcess, key: string, query: string) =>
  fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

describe.each(['pglite', 'postgres'] as const)('the process on %s', (kind) => {
  jest.setTimeout(240_000);
  let app: AppProcess;
  let scratch: TestDatabase | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') scratch = await createScratchDatabase('postgres');
    else dataDir = mkdtempSync(path.join(tmpdir(), 'vr-survive-'));
    app = startAppProcess(scratch ? { DATABASE_URL: scratch.url! } : { DATA_DIR: dataDir!, DATABASE_URL: '' });
    await appProcessReady(app);
  });
  afterAll(async () => {
    if (app.child.exitCode === null) await stopAppProcess(app);
    await scratch?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers N0 with a BAD_USER_INPUT, leaves no rejection unhandled and serves the next request', async () => {
    const [key] = demoKeysIn(app.output());
    const first = await post(app, key!, N0);
    expect(first.status).toBe(200);
    const body = (await first.json()) as { data: unknown; errors: { path: unknown[]; extensions: { code: string } }[] };
    expect(body.errors[0]).toMatchObject({
      path: ['users', 'items', expect.any(Number), 'reports'],
      extensions: { code: 'BAD_USER_INPUT' },
    });
    // The abandoned promises rejected a moment after the answer: give them that moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await post(app, key!, '{ dealerships(limit: 1) { total } }');
    expect(second.status).toBe(200);
    expect(app.child.exitCode).toBeNull();
    expect(app.output()).not.toMatch(/unhandled promise rejection|Unhandled|ERR_UNHANDLED_REJECTION/);
  });
});

describe('an unhandled rejection', () => {
  it('is logged and counted, and the process goes on', () => {
    const script = `
      const { surviveUnhandledRejections } = require('./src/platform/process-guard');
      const { logger } = require('./src/platform/logger');
      const { processMetricsRegistry } = require('./src/platform/metrics/process-metrics');
      surviveUnhandledRejections(logger);
      Promise.reject(new Error('left without a handler'));
      setTimeout(async () => {
        console.log(await processMetricsRegistry().getSingleMetricAsString('vr_unhandled_rejections_total'));
        console.log('still alive');
      }, 200);
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: '', LOG_LEVEL: 'info' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('vr_unhandled_rejections_total 1');
    expect(run.stdout).toContain('still alive');
    expect(run.stdout + run.stderr).toContain('left without a handler');
  });
});
