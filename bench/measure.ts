/**
 * The benchmark's servers and its one measure: child processes that tell their port, and an
 * autocannon run against one of them with latency percentiles, peak RSS and the CPU time spent per
 * answered request by the server process (and, when asked, by the PostgreSQL backends serving it).
 */
import { execFileSync, fork, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuMs, percentile } from './support';
import { TOKEN, type Scenario } from './scenarios';

export interface ChildServer {
  name: string;
  url: string;
  process: ChildProcess;
}

/**
 * The runtime settings of the image, read from the Dockerfile's last `ENV` (its runtime stage) so
 * that they have one source: Node's flags (`NODE_OPTIONS`: the young generation's size,
 * AsyncContextFrame) and the C allocator's settings (`MALLOC_*`). The rest of that `ENV` (port,
 * data folder) is the benchmarks' own to set.
 */
function imageRuntime(): { nodeFlags: readonly string[]; environment: Readonly<Record<string, string>> } {
  const dockerfile = readFileSync(path.join(__dirname, '..', 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lastEnv = dockerfile.match(/^ENV .*$/gm)?.at(-1) ?? '';
  const values = new Map([...lastEnv.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(([, name, value]) => [name!, value!.replace(/^"|"$/g, '')]));
  const nodeOptions = values.get('NODE_OPTIONS');
  if (nodeOptions === undefined) throw new Error("the Dockerfile's runtime ENV sets no NODE_OPTIONS");
  return {
    nodeFlags: nodeOptions.split(/\s+/).filter(Boolean),
    environment: Object.fromEntries([...values].filter(([name]) => name.startsWith('MALLOC_'))),
  };
}

const IMAGE = imageRuntime();
/** Node's flags as the image runs the service (`imageNodeFlags` keeps those a binary accepts). */
export const IMAGE_NODE_FLAGS = IMAGE.nodeFlags;
/** The allocator settings the image gives the service. */
export const IMAGE_ENVIRONMENT = IMAGE.environment;

const acceptedFlags = new Map<string, boolean>();

/** The image's flags that the Node binary at `execPath` accepts (Node 20 lacks AsyncContextFrame's). */
export function imageNodeFlags(execPath: string = process.execPath): string[] {
  return IMAGE_NODE_FLAGS.filter((flag) => {
    const key = `${execPath} ${flag}`;
    let accepted = acceptedFlags.get(key);
    if (accepted === undefined) {
      const script = `process.exit(process.allowedNodeEnvironmentFlags.has(${JSON.stringify(flag)}) ? 0 : 1)`;
      accepted = spawnSync(execPath, ['-e', script], { env: { ...process.env, NODE_OPTIONS: '' } }).status === 0;
      acceptedFlags.set(key, accepted);
    }
    return accepted;
  });
}

const compiledCheckouts = new Set<string>();

/**
 * The JavaScript of a server file of a checkout's bench/ folder, compiled as the image compiles the
 * service (tsc with tsconfig.build.json's options; the image runs `node dist/src/app/main.js`), once
 * per checkout and process, into that folder's `.build/`. Not tsx: its transform costs every
 * request more than the image's code does (esbuild names each function it creates, as it creates
 * it; measured in bench/HISTORY.md, 2026-11-29, 20:38), so the figures would be of a service no one runs.
 */
function compiledServer(file: string): string {
  const bench = path.dirname(file);
  const checkout = path.dirname(bench);
  const build = path.join(bench, '.build');
  if (!compiledCheckouts.has(checkout)) {
    // Nothing of an earlier build: a module since removed from src/ must not still be found there.
    rmSync(path.join(build, 'out'), { recursive: true, force: true });
    mkdirSync(build, { recursive: true });
    const tsconfig = {
      extends: '../../tsconfig.build.json',
      compilerOptions: { rootDir: '../..', outDir: 'out', noEmit: false, incremental: false },
      include: ['../../src', '../app-server.ts', '../baseline-server.ts'],
    };
    writeFileSync(path.join(build, 'tsconfig.json'), JSON.stringify(tsconfig));
    // Types were checked by the checkout's own typecheck; this only writes the JavaScript.
    execFileSync(process.execPath, [path.join(checkout, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', build, '--noCheck'], {
      cwd: checkout,
      stdio: 'inherit',
    });
    compiledCheckouts.add(checkout);
  }
  return path.join(build, 'out', 'bench', `${path.basename(file, '.ts')}.js`);
}

/**
 * `file`: relative to this folder, or absolute (bench/ab.ts runs another checkout's), run compiled
 * (`compiledServer`). Options:
 * `execPath`, the Node binary to run it on (default: this process's); `cwd`, its working folder
 * (default: this one's); `nodeFlags`, Node's flags in place of the image's (`imageNodeFlags`).
 */
export function startChild(
  name: string,
  file: string,
  env: Record<string, string>,
  { execPath, cwd, nodeFlags = imageNodeFlags(execPath) }: { execPath?: string; cwd?: string; nodeFlags?: readonly string[] } = {},
): Promise<ChildServer> {
  // The access log is on, as in production (LOG_LEVEL=info, one JSON line per request): its lines
  // go to a file, whose path is printed, instead of the table's terminal.
  const logPath = path.join(os.tmpdir(), `vr-bench-${name}-${process.pid}.log`);
  const logFd = openSync(logPath, 'w');
  process.stderr.write(`${name}'s log: ${logPath}\n`);
  const child = fork(compiledServer(path.resolve(__dirname, file)), [], {
    ...(cwd ? { cwd } : {}),
    execArgv: [...nodeFlags],
    ...(execPath ? { execPath } : {}),
    // The limiter still runs (its cost is part of the measure) but never refuses: the load is ours.
    env: {
      ...process.env,
      ...IMAGE_ENVIRONMENT,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      LEAD_RATE_LIMIT_PER_MINUTE: '1000000000',
      // One key on every connection: the cap on one organization's requests in progress would
      // measure itself, not the service's throughput (bench:abuse measures what it buys).
      ORG_CONCURRENT_REQUESTS: '0',
      ...env,
    },
    stdio: ['ignore', logFd, 'inherit', 'ipc'],
  });
  closeSync(logFd);
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ name, url: `http://127.0.0.1:${message.port}`, process: child }));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
}

/** Resident set size of a process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export interface Measurement {
  requests: number;
  reqPerSec: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  peakRssMb: number;
  /** the server process's CPU time (user + system) per answered request */
  cpuMsPerRequest: number;
  /** the CPU time of the PostgreSQL backends serving that process, per answered request */
  pgCpuMsPerRequest?: number;
}

export interface MeasureOptions {
  duration: number;
  connections: number;
}

/** Counts CPU over a measurement window; started just before the load and stopped just after it. */
export interface CpuWindow {
  start(): Promise<void>;
  /** CPU ms used since start() */
  stop(): Promise<number>;
}

/**
 * One request before measuring: the scenario must answer what it expects. A server may still be
 * draining the previous scenario's queue (slow statements at 1M reports), so a 503 or a timeout
 * is retried a few times before the run gives up. Returns the body, for the peers' data check.
 */
export async function checkOnce(server: ChildServer, scenario: Scenario): Promise<string> {
  let last = '';
  for (let attempt = 0; attempt < 4; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 5_000));
    try {
      const first = (text: string) => (scenario.eachReport ? text.replace(TOKEN, scenario.eachReport[0]!) : text);
      const response = await fetch(`${server.url}${first(scenario.path)}`, {
        method: scenario.method,
        headers: scenario.headers,
        body: scenario.body === undefined ? undefined : first(scenario.body),
        signal: AbortSignal.timeout(90_000),
      });
      const text = await response.text();
      if (response.status === scenario.expectStatus) return text;
      last = `${response.status} ${text.slice(0, 300)}`;
      if (response.status !== 503) break;
    } catch (error) {
      last = String(error);
    }
  }
  throw new Error(`${scenario.name} on ${server.name}: ${last}`);
}

export async function measure(
  server: ChildServer,
  scenario: Scenario,
  options: MeasureOptions,
  backends?: CpuWindow,
): Promise<Measurement> {
  await checkOnce(server, scenario);
  const latencies: number[] = [];
  // A different report every request (scenario.eachReport): each request takes the next one.
  const reports = scenario.eachReport;
  let next = reports ? Math.floor(Math.random() * reports.length) : 0;
  const eachReport = reports && {
    requests: [
      {
        setupRequest: (request: autocannon.Request): autocannon.Request => {
          const token = reports[next++ % reports.length]!;
          return {
            ...request,
            path: request.path?.replace(TOKEN, token),
            ...(typeof request.body === 'string' && { body: request.body.replace(TOKEN, token) }),
          };
        },
      },
    ],
  };
  let errors = 0;
  let peak = rssMb(server.process.pid!);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.process.pid!));
  }, 100);
  await backends?.start();
  const started = Date.now();
  const cpuBefore = cpuMs(server.process.pid!);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${server.url}${scenario.path}`,
        method: scenario.method,
        headers: scenario.headers,
        body: scenario.body,
        connections: options.connections,
        duration: options.duration,
        ...eachReport,
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
      if (statusCode !== scenario.expectStatus) errors += 1;
    });
  });
  const cpuUsed = cpuMs(server.process.pid!) - cpuBefore;
  const seconds = (Date.now() - started) / 1000;
  const pgCpuUsed = await backends?.stop();
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(server.process.pid!));
  latencies.sort((a, b) => a - b);
  const answered = Math.max(latencies.length, 1);
  return {
    requests: latencies.length,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors: errors + result.errors + result.timeouts,
    peakRssMb: peak,
    cpuMsPerRequest: cpuUsed / answered,
    ...(pgCpuUsed === undefined ? {} : { pgCpuMsPerRequest: pgCpuUsed / answered }),
  };
}
