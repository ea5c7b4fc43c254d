/**
 * A/B of one change: the app of another commit (A, `--base`) and of this checkout (B), both on
 * the same database, **loaded at the same time**, each pinned to its own core with the cores
 * swapped every round (`taskset`, when there is one). What the machine does to one server during a
 * round it does to the other, so each round's B/A is a fair pair even on a host whose speed moves
 * by a third within minutes (measured: one-server-at-a-time rounds could not resolve a 5 % step on
 * such a host; bench/HISTORY.md, 2026-11-28, 09:50). Prints, per scenario, each side's median CPU
 * ms per answered request and the median of the paired ratios, with how many rounds B won.
 *
 *   npm run bench:ab -- --base <commit> --database-url postgres://…/vr_bench_… [--only <regex>]
 *     [--rounds 8] [--duration 6] [--warm-up 10] [--connections 10] [--node 22|<path>]
 *     [--b-node-flags "<flags>"] [--a-node-flags "<flags>"] [--b-env K=V,…] [--a-env K=V,…]
 *
 * `--b-env "K=V,K=V"` adds to B's environment (with `--base HEAD`: the A/B of a setting, e.g.
 * tracing: `--b-env OTEL_TRACES_SAMPLER_ARG=0.1 --otlp-sink`); `--otlp-sink` starts an OTLP/HTTP
 * receiver in this process that accepts and drops every export, and points B's
 * `OTEL_EXPORTER_OTLP_ENDPOINT` at it (a collector's work is not the service's CPU); `--otlp-sink both`
 * points A at it too. `--a-env` and `--a-node-flags` set A's side alike: the A/B of a runtime flag
 * under tracing, e.g. both sampled at 10 %, B with `--experimental-async-context-frame`.
 *
 * `--node 22` runs both on the Node 22 that `--peers` installs (the image's runtime; installed if
 * missing), `--node <path>` on that binary; by default, on this process's Node. `--b-node-flags`
 * gives B Node's flags in place of the image's (`imageNodeFlags` in measure.ts): with `--base HEAD`,
 * the A/B of a runtime setting rather than of a change.
 *
 * The database must hold reports (`npm run bench -- --keep` leaves one). A's code is checked out in
 * a temporary git worktree, run with this checkout's node_modules and generated client: a base whose
 * dependencies differ from this checkout's cannot be compared this way. Under two loads at once a
 * request costs more than alone: the ratio is the figure, not the milliseconds.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { issueApiKey } from '../src/features/auth/api-keys';
import { openDatabase } from '../src/platform/db/database';
import { measure, startChild, type ChildServer } from './measure';
import { PEER_NODE, preparePostGraphile } from './peers/postgraphile';
import { buildScenarios } from './scenarios';
import { log, median } from './support';

interface Options {
  base: string;
  databaseUrl: string;
  only: RegExp;
  rounds: number;
  duration: number;
  warmUp: number;
  connections: number;
  /** the Node binary both run on (undefined: this process's) */
  node?: string;
  /** B's Node flags, in place of the image's */
  bNodeFlags?: string[];
  /** A's Node flags, in place of the image's */
  aNodeFlags?: string[];
  /** added to A's environment */
  aEnv: Record<string, string>;
  /** added to B's environment */
  bEnv: Record<string, string>;
  /** an OTLP receiver that drops what it gets, B's OTEL_EXPORTER_OTLP_ENDPOINT */
  otlpSink: boolean;
  /** A exports to the sink too */
  otlpSinkForA: boolean;
}

function parseOptions(argv: string[]): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const base = value('--base');
  const databaseUrl = value('--database-url');
  if (!base || !databaseUrl) throw new Error('usage: npm run bench:ab -- --base <commit> --database-url <url> [--only <regex>] …');
  const positive = (name: string, fallback: number) => {
    const n = Number(value(name) ?? fallback);
    if (!(n > 0)) throw new Error(`${name} takes a positive number`);
    return n;
  };
  return {
    base,
    databaseUrl,
    only: new RegExp(value('--only') ?? '^fetch one$|default page|GraphQL page'),
    rounds: positive('--rounds', 8),
    duration: positive('--duration', 6),
    warmUp: positive('--warm-up', 10),
    connections: positive('--connections', 10),
    node: value('--node'),
    bNodeFlags: value('--b-node-flags')?.split(/\s+/u).filter(Boolean),
    aNodeFlags: value('--a-node-flags')?.split(/\s+/u).filter(Boolean),
    bEnv: environmentOption(value('--b-env')),
    aEnv: environmentOption(value('--a-env')),
    otlpSink: argv.includes('--otlp-sink'),
    otlpSinkForA: value('--otlp-sink') === 'both',
  };
}

/** `K=V,K=V` as an environment (a value may hold `=`). */
function environmentOption(given: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (given ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

const repository = path.join(__dirname, '..');

/** A's code: a worktree of `base` with this checkout's node_modules and generated Prisma client. */
function checkOut(base: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vr-ab-'));
  execFileSync('git', ['worktree', 'add', '--detach', dir, base], { cwd: repository, stdio: 'ignore' });
  symlinkSync(path.join(repository, 'node_modules'), path.join(dir, 'node_modules'));
  const generated = path.join(repository, 'src', 'generated');
  if (existsSync(generated)) cpSync(generated, path.join(dir, 'src', 'generated'), { recursive: true });
  return {
    dir,
    remove: () => {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: repository, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `22`: the Node 22 of `--peers` (installed with the peer when missing); a path: that binary. */
function nodeBinary(node: string | undefined): string | undefined {
  if (node !== '22') return node;
  preparePostGraphile(log);
  return PEER_NODE;
}

const hasTaskset = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return os.cpus().length >= 2;
  } catch {
    return false;
  }
})();

function pin(server: ChildServer, core: number): void {
  if (hasTaskset) execFileSync('taskset', ['-pc', String(core), String(server.process.pid)], { stdio: 'ignore' });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const db = await openDatabase({ url: options.databaseUrl });
  const built = await buildScenarios(db.prisma, await db.prisma.report.count());
  const apiKey = (await issueApiKey(db.prisma, built.organizationId, 'ab', 'bench')).key;
  await db.close();
  const scenarios = built.list(apiKey).filter((s) => options.only.test(s.name) && s.expectStatus === 200);
  if (scenarios.length === 0) throw new Error(`no scenario matches ${options.only}`);

  const execPath = nodeBinary(options.node);
  const base = checkOut(options.base);
  const env = { DATABASE_URL: options.databaseUrl };
  const sink = options.otlpSink ? await startOtlpSink() : undefined;
  const sinkEnv: Record<string, string> = sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {};
  const aEnv = { ...env, ...options.aEnv, ...(options.otlpSinkForA ? sinkEnv : {}) };
  const bEnv = { ...env, ...options.bEnv, ...sinkEnv };
  const servers: ChildServer[] = [];
  try {
    servers.push(
      await startChild('ab-base', path.join(base.dir, 'bench', 'app-server.ts'), aEnv, {
        execPath,
        cwd: base.dir,
        nodeFlags: options.aNodeFlags,
      }),
    );
    servers.push(await startChild('ab-this', path.join(__dirname, 'app-server.ts'), bEnv, { execPath, nodeFlags: options.bNodeFlags }));
    const [a, b] = servers as [ChildServer, ChildServer];
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repository }).toString().trim();
    const nodeVersion = execFileSync(execPath ?? process.execPath, ['--version'])
      .toString()
      .trim();
    const setting = (flags: string[] | undefined, environment: Record<string, string>, exporting: boolean) =>
      (flags ? ` with ${flags.join(' ')}` : '') +
      (Object.keys(environment).length > 0 ? ` with ${JSON.stringify(environment)}` : '') +
      (exporting ? ' exporting to an OTLP sink' : '');
    log(
      `A: ${options.base}${setting(options.aNodeFlags, options.aEnv, options.otlpSinkForA)}, ` +
        `B: this checkout (${head})${setting(options.bNodeFlags, options.bEnv, Boolean(sink))}; Node ${nodeVersion}; ` +
        `${options.rounds} rounds of ${options.duration} s, ${options.connections} connections each`,
    );
    const rows: string[] = [];
    for (const scenario of scenarios) {
      const pairs: { a: number; b: number }[] = [];
      for (let round = -1; round < options.rounds; round += 1) {
        // Round -1 warms both up and is not counted.
        pin(a, round % 2 === 0 ? 0 : 1);
        pin(b, round % 2 === 0 ? 1 : 0);
        const seconds = round < 0 ? options.warmUp : options.duration;
        // The benchmark's one measure (bench/measure.ts), on both servers over the same seconds.
        const load = { duration: seconds, connections: options.connections };
        const [onA, onB] = await Promise.all([measure(a, scenario, load), measure(b, scenario, load)]);
        if (onA.errors + onB.errors > 0) throw new Error(`${scenario.name}: unexpected answers (A ${onA.errors}, B ${onB.errors})`);
        if (round >= 0) pairs.push({ a: onA.cpuMsPerRequest, b: onB.cpuMsPerRequest });
        log(`  ${scenario.name}, round ${round + 1}: A ${onA.cpuMsPerRequest.toFixed(3)} B ${onB.cpuMsPerRequest.toFixed(3)} ms/req`);
      }
      const ratio = median(pairs.map((p) => p.b / p.a));
      const wins = pairs.filter((p) => p.b < p.a).length;
      rows.push(
        `| ${scenario.name} | ${median(pairs.map((p) => p.a)).toFixed(3)} | ${median(pairs.map((p) => p.b)).toFixed(3)} | ${ratio.toFixed(3)} | ${wins}/${pairs.length} |`,
      );
    }
    console.log(
      `\n| scenario | A CPU ms/req | B CPU ms/req | median of paired B/A | B better in |\n|---|---:|---:|---:|---:|\n${rows.join('\n')}`,
    );
    if (sink) log(`the OTLP sink received ${sink.exports()} exports`);
  } finally {
    for (const server of servers) server.process.kill('SIGTERM');
    base.remove();
    sink?.close();
  }
}

/** Accepts OTLP/HTTP exports and drops them. */
async function startOtlpSink(): Promise<{ url: string; exports: () => number; close: () => void }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => server.close(),
  };
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
