/**
 * `npm run clients`: the generator matrix of issue 24. Each client generator integrators use reads
 * the committed openapi.json, generates a client, the client and a small program written the way
 * its types ask (clients/programs/) compile under `tsc --strict --noEmit`, and the program runs
 * against the real server on both databases: the JSON-filter case (state__contains
 * folder_sold.status true) must give the same total as the JSON text sent by hand, a lead is
 * created, and that lead's report, whose state holds nulls, is read back through the client
 * (Zodios validates it with the generated zod schemas). Beside them: ajv's 2020 dialect compiles
 * every component and validates that report, and Redocly lints the document.
 *
 * The generators are pinned in clients/tools-package.json and installed on demand into
 * clients/.tools/ (npm registry only; reinstalled when the pins change). openapi-typescript and
 * openapi-fetch are the project's own dev dependencies. Prints one line per tool and check, and
 * `N passed, N failed`; exits non-zero on any failure.
 */
import 'reflect-metadata';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { startTestServer } from '../test/support/server';
import { configureLogging } from '../src/platform/logger';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const TOOLS = path.join(__dirname, '.tools');
const WORK = path.join(TOOLS, 'work');
const PROGRAMS = path.join(__dirname, 'programs');
const DOCUMENT = path.join(ROOT, 'openapi.json');
const bin = (name: string) => path.join(TOOLS, 'node_modules', '.bin', name);
const projectBin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

interface Generator {
  name: string;
  /** what the report names: the packages and their versions */
  tools: string[];
  /** writes the client into `out` (the program's `./generated`) */
  generate(out: string): Promise<unknown>;
}

const GENERATORS: Generator[] = [
  {
    name: 'openapi-fetch',
    tools: ['openapi-typescript', 'openapi-fetch'],
    generate: (out) => run(projectBin('openapi-typescript'), [DOCUMENT, '--output', path.join(out, 'api.ts')]),
  },
  {
    name: 'orval',
    tools: ['orval'],
    generate: (out) => run(bin('orval'), ['--input', DOCUMENT, '--output', path.join(out, 'api.ts'), '--client', 'fetch']),
  },
  {
    name: 'hey-api',
    tools: ['@hey-api/openapi-ts'],
    generate: (out) => run(bin('openapi-ts'), ['-i', DOCUMENT, '-o', out]),
  },
  {
    name: 'zodios',
    tools: ['openapi-zod-client', '@zodios/core', 'zod'],
    generate: (out) => run(bin('openapi-zod-client'), [DOCUMENT, '-o', path.join(out, 'api.ts')]),
  },
];

const results: { check: string; ok: boolean; detail: string }[] = [];
function record(check: string, ok: boolean, detail = ''): void {
  results.push({ check, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${check}${detail ? `: ${detail}` : ''}`);
}

function versionOf(name: string): string {
  for (const dir of [path.join(TOOLS, 'node_modules'), path.join(ROOT, 'node_modules')]) {
    const file = path.join(dir, name, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '?';
}

async function installTools(): Promise<void> {
  const wanted = readFileSync(path.join(__dirname, 'tools-package.json'), 'utf8');
  const marker = path.join(TOOLS, 'installed.json');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return;
  mkdirSync(TOOLS, { recursive: true });
  writeFileSync(path.join(TOOLS, 'package.json'), wanted);
  const started = Date.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: TOOLS });
  writeFileSync(marker, wanted);
  console.log(`installed the generators into clients/.tools in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

const failure = (error: unknown) => {
  const e = error as { stdout?: string; stderr?: string; message?: string };
  return `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(0, 12).join('\n') || String(e.message);
};

/** Generates and compiles one client; true when its program can run. */
async function prepare(generator: Generator): Promise<boolean> {
  const dir = path.join(WORK, generator.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'generated'), { recursive: true });
  const label = `${generator.name} (${generator.tools.map((tool) => `${tool} ${versionOf(tool)}`).join(', ')})`;
  try {
    await generator.generate(path.join(dir, 'generated'));
    record(`${label}: generates a client from openapi.json`, true);
  } catch (error) {
    record(`${label}: generates a client from openapi.json`, false, failure(error));
    return false;
  }
  copyFileSync(path.join(PROGRAMS, 'shared.ts'), path.join(dir, 'shared.ts'));
  copyFileSync(path.join(PROGRAMS, `${generator.name}.ts`), path.join(dir, 'main.ts'));
  try {
    await run(
      bin('tsc'),
      [
        ...['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'esnext'],
        ...['--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--types', 'node', 'main.ts'],
      ],
      { cwd: dir },
    );
    record(`${generator.name}: client and program compile under tsc --strict`, true);
    return true;
  } catch (error) {
    record(`${generator.name}: client and program compile under tsc --strict`, false, failure(error));
    return false;
  }
}

async function main(): Promise<void> {
  configureLogging({ level: process.env.LOG_LEVEL || 'warn' });
  const started = Date.now();
  await installTools();
  mkdirSync(WORK, { recursive: true });
  // The programs use top-level await: ES modules.
  writeFileSync(path.join(WORK, 'package.json'), '{ "type": "module" }\n');

  try {
    await run(bin('redocly'), ['lint', DOCUMENT, '--config', path.join(ROOT, 'redocly.yaml')], { cwd: ROOT });
    record(`redocly ${versionOf('@redocly/cli')}: lint openapi.json`, true);
  } catch (error) {
    record(`redocly ${versionOf('@redocly/cli')}: lint openapi.json`, false, failure(error));
  }

  const ready: Generator[] = [];
  for (const generator of GENERATORS) if (await prepare(generator)) ready.push(generator);

  const document = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { components: { schemas: Record<string, object> } };
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const local = (value: unknown) => JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\/([^"]+)"/g, '"$1"')) as object;
  for (const [name, schema] of Object.entries(local(document.components.schemas))) ajv.addSchema(schema as object, name);

  for (const kind of ['pglite', 'postgres'] as const) {
    const server = await startTestServer(kind, { reports: 120 });
    try {
      const key = server.keys[0]!;
      const organizationId = server.dataset.organizations[0]!.id;
      const dealershipId = server.dataset.dealerships.find((d) => d.organization_id === organizationId)!.id;
      const total = async (query: string) => {
        const response = await fetch(`${server.url}/public/reports/?limit=1&${query}`, { headers: { 'x-api-key': key } });
        return ((await response.json()) as { total: number }).total;
      };
      const expected = await total(`state__contains=${encodeURIComponent(JSON.stringify({ folder_sold: { status: true } }))}`);
      const all = await total('');
      const brackets = await total(`${encodeURIComponent('state__contains[folder_sold][status]')}=true`);
      record(
        `${kind}: the JSON text filters (${expected} of ${all}), deepObject brackets give the same total`,
        expected > 0 && expected < all && brackets === expected,
        `brackets ${brackets}`,
      );

      for (const generator of ready) {
        const check = `${kind}: ${generator.name} answers the JSON filter, creates a lead, reads its report with nulls`;
        try {
          const { stdout } = await run(projectBin('tsx'), ['main.ts'], {
            cwd: path.join(WORK, generator.name),
            env: { ...process.env, BASE_URL: server.url, API_KEY: key, DEALERSHIP_ID: dealershipId },
            timeout: 60_000,
          });
          const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as { sold: number; lead: string; folderEstimated: unknown };
          const ok = outcome.sold === expected && /^[0-9a-f-]{36}$/.test(outcome.lead) && outcome.folderEstimated === null;
          record(check, ok, `total ${outcome.sold} (expected ${expected}), folder_estimated ${JSON.stringify(outcome.folderEstimated)}`);
        } catch (error) {
          record(check, false, failure(error));
        }
      }

      // ajv (2020 dialect) on the same kind of answer: a lead's report, nulls included.
      const created = (await (
        await fetch(`${server.url}/public/reports/create-lead`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ dealership: dealershipId }),
        })
      ).json()) as { token: string };
      const lead = await (await fetch(`${server.url}/public/reports/${created.token}`, { headers: { 'x-api-key': key } })).json();
      const validate = ajv.getSchema('Report')!;
      record(
        `${kind}: ajv ${versionOf('ajv')} (2020-12) validates a lead's report against Report`,
        validate(lead) === true,
        ajv.errorsText(validate.errors),
      );
    } finally {
      await server.close();
    }
  }

  const failed = results.filter((r) => !r.ok).length;
  console.log(`\nclients: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
