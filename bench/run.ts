/**
 * `npm run bench` (tsx bench/run.ts): loads N reports into a scratch PostgreSQL database, starts
 * the real app and a bare express + pg baseline (same SQL) as child processes, and runs autocannon
 * against each scenario for a fixed time. Prints one table and writes it to bench/results/.
 *
 *   --reports N          reports to load (default 100000)
 *   --quick              10k reports, 3 s per scenario (a smoke run, under 2 minutes)
 *   --duration S         seconds per scenario and server (default 10)
 *   --connections C      autocannon connections (default 20)
 *   --database-url URL   use this database (migrated here; loaded only when it has no reports)
 *   --keep               keep the scratch database
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../src/platform/db/database';
import { applyMigrations } from '../src/platform/db/migrations/apply';
import { issueApiKey } from '../src/features/auth/api-keys';
import { loadBenchData } from './load';
import { ADMIN_URL, adminQuery, cpuMs, log, percentile } from './support';
import { buildScenarios, type Scenario } from './scenarios';

interface Options {
  reports: number;
  duration: number;
  connections: number;
  databaseUrl?: string;
  keep: boolean;
  quick: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { reports: 100_000, duration: 10, connections: 20, keep: false, quick: false };
  const value = (i: number) => {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`${argv[i]} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i += 1) {
    switch (argv[i]) {
      case '--quick':
        options.quick = true;
        options.reports = 10_000;
        options.duration = 3;
        break;
      case '--reports':
        options.reports = Number(value(i++));
        break;
      case '--duration':
        options.duration = Number(value(i++));
        break;
      case '--connections':
        options.connections = Number(value(i++));
        break;
      case '--database-url':
        options.databaseUrl = value(i++);
        break;
      case '--keep':
        options.keep = true;
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// Child servers

interface ChildServer {
  name: string;
  url: string;
  process: ChildProcess;
}

function startChild(name: string, file: string, env: Record<string, string>): Promise<ChildServer> {
  const child = fork(path.join(__dirname, file), [], {
    execArgv: ['--import', 'tsx'],
    // The limiter still runs (its cost is part of the measure) but never refuses: the load is ours.
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      LEAD_RATE_LIMIT_PER_MINUTE: '1000000000',
      // One key on every connection: the cap on one organization's requests in progress would
      // measure itself, not the service's throughput (bench:abuse measures what it buys).
      ORG_CONCURRENT_REQUESTS: '0',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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

// ---------------------------------------------------------------------------------------------
// Measuring

interface Measurement {
  requests: number;
  reqPerSec: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  peakRssMb: number;
  /** the server process's CPU time (user + system) per answered request */
  cpuMsPerRequest: number;
}

/**
 * One request before measuring: the scenario must answer what it expects. A server may still be
 * draining the previous scenario's queue (slow statements at 1M reports), so a 503 or a timeout
 * is retried a few times before the run gives up.
 */
async function checkOnce(server: ChildServer, scenario: Scenario): Promise<void> {
  let last = '';
  for (let attempt = 0; attempt < 4; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 5_000));
    try {
      const response = await fetch(`${server.url}${scenario.path}`, {
        method: scenario.method,
        headers: scenario.headers,
        body: scenario.body,
        signal: AbortSignal.timeout(90_000),
      });
      const text = await response.text();
      if (response.status === scenario.expectStatus) return;
      last = `${response.status} ${text.slice(0, 300)}`;
      if (response.status !== 503) break;
    } catch (error) {
      last = String(error);
    }
  }
  throw new Error(`${scenario.name} on ${server.name}: ${last}`);
}

async function measure(server: ChildServer, scenario: Scenario, options: Options): Promise<Measurement> {
  await checkOnce(server, scenario);
  const latencies: number[] = [];
  let errors = 0;
  let peak = rssMb(server.process.pid!);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.process.pid!));
  }, 100);
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
      },
      (error, r) => (error ? reject(error) : resolve(r)),
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
      if (statusCode !== scenario.expectStatus) errors += 1;
    });
  });
  clearInterval(sampler);
  const cpuUsed = cpuMs(server.process.pid!) - cpuBefore;
  peak = Math.max(peak, rssMb(server.process.pid!));
  latencies.sort((a, b) => a - b);
  const seconds = (Date.now() - started) / 1000;
  return {
    requests: latencies.length,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors: errors + result.errors + result.timeouts,
    peakRssMb: peak,
    cpuMsPerRequest: cpuUsed / Math.max(latencies.length, 1),
  };
}

// ---------------------------------------------------------------------------------------------

interface Row {
  scenario: string;
  app: Measurement;
  baseline: Measurement | null;
}

function table(rows: Row[]): string {
  const head = [
    'scenario',
    'req/s',
    'CPU ms/req',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'peak RSS MB',
    'errors',
    'baseline req/s',
    'baseline CPU ms/req',
    'ratio',
  ];
  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
  const lines = rows.map((r) => [
    r.scenario,
    fmt(r.app.reqPerSec, 0),
    fmt(r.app.cpuMsPerRequest, 2),
    fmt(r.app.p50),
    fmt(r.app.p95),
    fmt(r.app.p99),
    fmt(r.app.peakRssMb, 0),
    String(r.app.errors),
    r.baseline ? fmt(r.baseline.reqPerSec, 0) : '-',
    r.baseline ? fmt(r.baseline.cpuMsPerRequest, 2) : '-',
    r.baseline ? fmt(r.app.reqPerSec / r.baseline.reqPerSec, 2) : '-',
  ]);
  const out = [head, ...lines];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...out.slice(1).map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  let url = options.databaseUrl;
  let scratchName: string | undefined;
  if (!url) {
    scratchName = `vr_bench_${startedAt.getTime()}`;
    await adminQuery(`CREATE DATABASE ${scratchName}`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${scratchName}`;
    url = u.toString();
    log(`scratch database ${scratchName}`);
  }
  const children: ChildServer[] = [];
  try {
    const db = await openDatabase({ url });
    await db.withSession((session) => applyMigrations(session));
    const existing = await db.prisma.report.count();
    if (existing === 0) {
      log(`loading ${options.reports} reports`);
      await loadBenchData(url, options.reports, log);
    } else log(`database already holds ${existing} reports: not loading`);

    const scenarios = await buildScenarios(db.prisma, options.reports);
    const apiKey = (await issueApiKey(db.prisma, scenarios.organizationId, 'bench', 'bench')).key;
    await db.close();

    const app = await startChild('app', 'app-server.ts', { DATABASE_URL: url });
    const baseline = await startChild('baseline', 'baseline-server.ts', {
      DATABASE_URL: url,
      BENCH_ORGANIZATION_ID: scenarios.organizationId,
    });
    children.push(app, baseline);

    const rows: Row[] = [];
    for (const scenario of scenarios.list(apiKey)) {
      log(`${scenario.name} …`);
      const measuredApp = await measure(app, scenario, options);
      const measuredBaseline = scenario.baseline ? await measure(baseline, scenario.baseline, options) : null;
      rows.push({ scenario: scenario.name, app: measuredApp, baseline: measuredBaseline });
    }

    const summary = table(rows);
    console.log(
      `\n${options.reports} reports (organization under test: ${scenarios.organizationReports}), ${options.duration} s per scenario, ${options.connections} connections\n`,
    );
    console.log(summary);
    const dir = path.join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        { startedAt, options: { ...options, databaseUrl: undefined }, organizationReports: scenarios.organizationReports, rows },
        null,
        2,
      ),
    );
    log(`\nwritten ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const child of children) child.process.kill();
    if (scratchName && !options.keep) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await adminQuery(`DROP DATABASE IF EXISTS ${scratchName} WITH (FORCE)`);
      log(`dropped ${scratchName}`);
    } else if (scratchName) log(`kept ${url}`);
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
