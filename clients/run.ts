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
import { spawn } from 'node:child_process';
import { buildCorpus, type ParityRequest } from '../parity/corpus';
import { freePort, waitFor } from '../loadtest/net';
import { startTestServer, type TestServer } from '../test/support/server';
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

  if (process.env.CLIENTS_ONLY === 'prism') {
    // A quick run of the proxy check alone.
    await prismProxy();
    return summary(started);
  }
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

  await prismProxy();
  summary(started);
}

function summary(started: number): void {
  const failed = results.filter((r) => !r.ok).length;
  console.log(`\nclients: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

/**
 * Spellings Pydantic's lax mode accepts (so FastAPI, and this service) that no JSON Schema type
 * states, FastAPI's own document included: `1_000` and a repeated key for an integer, `yes`/`on`/`1`/`t`
 * for a boolean, a date or a unix timestamp for a date-time, a braced or unhyphenated UUID.
 */
const LAX_SPELLINGS =
  /[?&](limit|offset)=(1_000|1&limit=2)|[?&]valid=(0|1|TRUE|f|n|no|off|on|t|y|yes)$|__(gte|lte)=(\d+|2025-01-01(%20.*)?)$|_id=(%7B.*%7D|[0-9a-f]{32})$/;

/** In a body: `"false"` for a boolean; an address EmailStr normalizes (display name, IDN, spaces) that `format: email` refuses. */
const LAX_BODIES = /^(booleans as strings|email ")/;

/**
 * Stoplight Prism as a validating proxy in front of the service (`prism proxy openapi.json <server>
 * --errors`): the parity corpus (error paths by class) and successful requests pass through it.
 * A mismatch is Prism finding a response that the document does not describe, or refusing a
 * request that the service accepts (the document stricter than the service). Requests the service
 * refuses and Prism refuses too are agreement; those Prism lets through to a service 422 are
 * counted (the document looser than the service: what no schema can say, e.g. an e-mail address
 * Pydantic refuses) but not failed.
 */
async function prismProxy(): Promise<void> {
  const server: TestServer = await startTestServer('pglite', { reports: 40 });
  const port = await freePort();
  const prism = spawn(bin('prism'), ['proxy', DOCUMENT, server.url, '--errors', '--port', String(port), '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let prismLog = '';
  prism.stdout.on('data', (chunk: Buffer) => (prismLog += chunk.toString()));
  prism.stderr.on('data', (chunk: Buffer) => (prismLog += chunk.toString()));
  const proxy = `http://127.0.0.1:${port}`;
  try {
    await waitFor('prism', 60_000, async () => (await fetch(`${proxy}/public/dealerships/`)).status > 0);
    const organizationId = server.dataset.organizations[0]!.id;
    const ids = {
      key: server.keys[0]!,
      reportId: server.dataset.reports.find((r) => r.organization_id === organizationId)!.token,
      userId: server.dataset.users.find((u) => u.organization_id === organizationId)!.id,
      dealershipId: server.dataset.dealerships.find((d) => d.organization_id === organizationId)!.id,
    };
    const key = { 'x-api-key': ids.key };
    const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const successes: ParityRequest[] = [
      '/public/reports/',
      '/public/reports/?limit=5&offset=2&order_by=-updated_at,vin',
      `/public/reports/?state__contains=${json({ folder_sold: { status: true } })}`,
      `/public/reports/?state__not_contains=${json({ folder_sold: { status: true } })}&valid=false`,
      `/public/reports/?data__contains=${json({ vehicle: { specifications: { brand: 'Renault' } } })}&type=remote`,
      '/public/reports/?search=renault%20clio&created_at__gte=2020-01-01T00:00:00Z',
      `/public/reports/${ids.reportId}`,
      '/public/users/?limit=3&order_by=name',
      `/public/users/${ids.userId}`,
      '/public/dealerships/?order_by=-position',
    ].map((path) => ({ group: 'success', name: `GET ${path}`, method: 'GET', path, headers: key }));
    successes.push({
      group: 'success',
      name: 'POST create-lead',
      method: 'POST',
      path: '/public/reports/create-lead',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ dealership: ids.dealershipId, name: 'Prism Client', email: 'client@example.com', lang: 'en' }),
    });
    // Paths outside the document (redirects, 404s, other methods) are Prism's own business: compared on documented ones.
    const documented = (request: ParityRequest) => /^\/public\/(reports|users|dealerships)\/[^/]*$/.test(request.path.split('?')[0]!);
    // Bodies Prism 5.16 never answers (it hangs reading them): the service's 400/422 for them is tested in test/parity.
    const prismHangs = new Set(['whitespace body', 'invalid JSON', 'UTF-16 LE with BOM', 'invalid UTF-8', 'UTF-8 BOM']);
    const corpus = [...successes, ...buildCorpus(ids).filter((r) => documented(r) && !prismHangs.has(r.name))];
    const mismatches: string[] = [];
    let agreed = 0;
    let lax = 0;
    const looser: string[] = [];
    for (const request of corpus) {
      const init = () => ({
        method: request.method,
        headers: request.headers,
        body: request.body as BodyInit | undefined,
        redirect: 'manual' as const,
        signal: AbortSignal.timeout(15_000),
      });
      const direct = await fetch(`${server.url}${request.path}`, init());
      await direct.arrayBuffer();
      let proxied: Response;
      let text: string;
      try {
        proxied = await fetch(`${proxy}${request.path}`, init());
        text = await proxied.text();
      } catch (error) {
        mismatches.push(`${request.name}: no answer through Prism (${String(error)})`);
        continue;
      }
      const prismError = /stoplight\.io\/prism\/errors#(\w+)/.exec(text)?.[1];
      const violations = proxied.headers.get('sl-violations');
      const refusal = ['UNPROCESSABLE_ENTITY', 'UNAUTHORIZED', 'NO_METHOD_MATCHED_ERROR', 'NO_PATH_MATCHED_ERROR'];
      if (prismError && refusal.includes(prismError)) {
        if (direct.status >= 300) agreed += 1;
        else if (LAX_SPELLINGS.test(request.path) || LAX_BODIES.test(request.name)) lax += 1;
        else mismatches.push(`${request.name}: Prism refuses a request the service answers ${direct.status} (${text.slice(0, 300)})`);
      } else if (prismError || violations) {
        mismatches.push(`${request.name}: ${prismError ?? ''} ${violations ?? ''} ${text.slice(0, 300)}`);
      } else if (direct.status === 422) {
        looser.push(request.name);
      }
    }
    record(
      `prism ${versionOf('@stoplight/prism-cli')} proxy --errors: ${corpus.length} requests (${successes.length} successes), ` +
        `${mismatches.length} request/response mismatches (refused by both: ${agreed}; Pydantic lax spellings the service ` +
        `accepts as FastAPI does and the document does not list: ${lax}; passed by Prism to a service 422: ${looser.length})`,
      mismatches.length === 0,
      mismatches.slice(0, 40).join('\n'),
    );
    if (process.env.CLIENTS_VERBOSE) console.log(`passed by Prism to a service 422:\n  ${looser.join('\n  ')}`);
  } catch (error) {
    record('prism proxy', false, `${String(error)}\n${prismLog.slice(-2000)}`);
  } finally {
    prism.kill();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
