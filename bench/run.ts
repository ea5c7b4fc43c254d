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
 *   --peers              instead of the scenarios: our app, the baseline and PostGraphile 5
 *                        (installed on demand into bench/.peers/, with the Node 22 all three
 *                        then run on) on three scenarios, same data checked first, with the CPU
 *                        of the PostgreSQL backends (bench/peers/)
 *   --rounds N           with --peers: rounds of alternating systems, medians kept (default 3)
 *   --only REGEX         only the scenarios whose name matches (e.g. 'default page|vin|type='; with
 *                        --peers, the peers' scenarios, e.g. 'typed selection|different report')
 *   --open-loop R1,R2    instead of autocannon's closed loop: the app alone, each scenario sent at
 *                        these fixed arrival rates (req/s) for --duration seconds each, latency
 *                        from each request's scheduled send time (bench/open-loop.ts), e.g.
 *                        --open-loop 50,100,200 --only 'default page|vin|type=|^fetch one$'
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/platform/db/database';
import { applyMigrations } from '../src/platform/db/migrations/apply';
import { issueApiKey } from '../src/features/auth/api-keys';
import { loadBenchData } from './load';
import { ADMIN_URL, adminQuery, log } from './support';
import { buildScenarios } from './scenarios';
import { measure, startChild, type ChildServer, type Measurement } from './measure';
import { peerTable, runPeers } from './peers/run-peers';
import { PEER_NODE, preparePostGraphile } from './peers/postgraphile';
import { openLoop, openLoopTable, type OpenLoopRow } from './open-loop';

interface Options {
  reports: number;
  duration: number;
  connections: number;
  databaseUrl?: string;
  keep: boolean;
  quick: boolean;
  peers: boolean;
  rounds: number;
  only?: RegExp;
  openLoop?: number[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = { reports: 100_000, duration: 10, connections: 20, keep: false, quick: false, peers: false, rounds: 3 };
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
      case '--peers':
        options.peers = true;
        break;
      case '--rounds':
        options.rounds = Number(value(i++));
        break;
      case '--only':
        options.only = new RegExp(value(i++));
        break;
      case '--open-loop':
        options.openLoop = value(i++)
          .split(',')
          .map((rate) => Number(rate));
        if (options.openLoop.some((rate) => !(rate > 0))) throw new Error('--open-loop takes rates in req/s, e.g. 50,100,200');
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------

interface Row {
  scenario: string;
  /** null with `failure` when the app's or the baseline's check failed */
  app: Measurement | null;
  baseline: Measurement | null;
  failure?: string;
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
  const lines = rows.map((r) =>
    !r.app
      ? [r.scenario, `failed: ${(r.failure ?? '').replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 120)}`, ...head.slice(2).map(() => '-')]
      : [
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
        ],
  );
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

    // With the peers, the app and the baseline run on PostGraphile's Node (22, the image's).
    if (options.peers) preparePostGraphile(log);
    const execPath = options.peers ? PEER_NODE : undefined;
    const app = await startChild('app', 'app-server.ts', { DATABASE_URL: url }, { execPath });
    const baseline = await startChild(
      'baseline',
      'baseline-server.ts',
      { DATABASE_URL: url, BENCH_ORGANIZATION_ID: scenarios.organizationId },
      { execPath },
    );
    children.push(app, baseline);

    const dir = path.join(__dirname, 'results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${startedAt.toISOString().replace(/[:.]/g, '-')}${options.peers ? '-peers' : ''}.json`);
    const header = `${existing || options.reports} reports (organization under test: ${scenarios.organizationReports}), ${options.duration} s per scenario, ${options.connections} connections`;
    const common = { startedAt, options: { ...options, databaseUrl: undefined }, organizationReports: scenarios.organizationReports };

    if (options.peers) {
      const context = {
        organizationId: scenarios.organizationId,
        reportToken: scenarios.sampleToken,
        reportTokens: scenarios.reportTokens,
        apiKey,
      };
      const peerOptions = { ...options, databaseUrl: url };
      const results = await runPeers(context, { app, baseline }, peerOptions, log, (server) => children.push(server));
      console.log(`\n${header}, ${options.rounds} rounds (medians)\n`);
      for (const result of results) console.log(`### ${result.scenario}\n\n${peerTable(result)}\n`);
      writeFileSync(file, JSON.stringify({ ...common, peers: results }, null, 2));
      log(`written ${path.relative(process.cwd(), file)}`);
      return;
    }

    const prepared = await scenarios.prepare(app.url, apiKey);
    const selected = scenarios.list(apiKey, prepared).filter((s) => !options.only || options.only.test(s.name));
    if (options.openLoop) {
      const rows: OpenLoopRow[] = [];
      for (const scenario of selected) {
        log(`${scenario.name} …`);
        try {
          // Unrecorded: JIT, the pool's connections, the compiled documents (2nd sighting).
          await openLoop(app, scenario, options.openLoop[0]!, Math.min(3, options.duration));
          const runs = [];
          for (const rate of options.openLoop) {
            log(`  ${rate} req/s`);
            runs.push(await openLoop(app, scenario, rate, options.duration));
          }
          rows.push({ scenario: scenario.name, runs });
        } catch (error) {
          log(`  failed: ${String(error)}`);
          rows.push({ scenario: scenario.name, runs: [], failure: String(error) });
        }
      }
      console.log(
        `\n${existing || options.reports} reports (organization under test: ${scenarios.organizationReports}), open loop, ${options.duration} s per rate\n`,
      );
      console.log(openLoopTable(rows));
      writeFileSync(file.replace(/\.json$/, '-open-loop.json'), JSON.stringify({ ...common, openLoop: rows }, null, 2));
      return;
    }

    const rows: Row[] = [];
    for (const scenario of selected) {
      log(`${scenario.name} …`);
      // One scenario that cannot be answered (a 30 s statement timeout at 1M reports on busy cores)
      // must not cost the figures of all the others.
      try {
        const measuredApp = await measure(app, scenario, options);
        const measuredBaseline = scenario.baseline ? await measure(baseline, scenario.baseline, options) : null;
        rows.push({ scenario: scenario.name, app: measuredApp, baseline: measuredBaseline });
      } catch (error) {
        log(`  failed: ${String(error)}`);
        rows.push({ scenario: scenario.name, app: null, baseline: null, failure: String(error) });
      }
    }

    console.log(`\n${header}\n`);
    console.log(table(rows));
    writeFileSync(file, JSON.stringify({ ...common, rows }, null, 2));
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
