/**
 * `npm run bench:abuse` (tsx bench/abuse.ts): what attackers cost another tenant. Loads N reports
 * into a scratch PostgreSQL database, starts the real app (bench/app-server.ts, production
 * settings) and, for each scenario, measures a victim tenant's steady reads (GET /public/reports/?limit=20)
 * while attackers send their requests, each attacker from its own client address
 * (X-Forwarded-For, with TRUST_PROXY=loopback as behind HAProxy). The victim's client and the
 * attackers' clients are two processes of their own (bench/load-client.ts), so neither delays the
 * other's timing. Each scenario runs `--repeat` times (a fresh server each time); the table gives
 * the median run (by victim p95) and every run's p95, because the machine's other jobs move single runs.
 *
 *   --reports N       reports to load (default 20000)
 *   --duration S      seconds per run (default 10)
 *   --repeat R        runs per scenario (default 3)
 *   --scenarios LIST  which scenarios, by number (default all): e.g. --scenarios 1,5,6
 *   --env K=V         an extra server variable (repeatable), e.g. --env ORG_CONCURRENT_REQUESTS=0
 *   --compare DIR     also run the server of another checkout (e.g. a worktree of main), alternating
 *                     with this one run by run, so that both meet the same machine load
 *   --also K=V,K=V    also run this checkout with these variables (repeatable), alternating likewise
 *   --timeline        print when the victim's slowest answers came (seconds into the run)
 *   --cpu-prof DIR    each server writes a V8 CPU profile into DIR when it stops (open it in Chrome DevTools)
 *   --node-arg ARG    a Node.js option of the servers (repeatable), e.g. --node-arg=--trace-gc
 *   --settle S        then wait S seconds with no load and give the server's resident memory and
 *                     open descriptors beside their idle values (what a flood leaves behind)
 *
 * N6_BODY=N in the environment sets the size of N6's lead body (default 95,000 bytes): with 1,000,
 * what the bodies themselves cost shows apart from the connections'.
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { buildAppSchema } from '../src/api/graphql/schema';
import { issueApiKey } from '../src/features/auth/api-keys';
import { openDatabase } from '../src/platform/db/database';
import { applyMigrations } from '../src/platform/db/migrations/apply';
import { loadBenchData } from './load';
import type { ClientSpec, LoadResult } from './load-client';
import { IMAGE_ENVIRONMENT } from './measure';
import { ADMIN_URL, adminQuery, cpuMs, log, percentile } from './support';

/** the victim's requests per second */
const VICTIM_RATE = 10;

const aliasDocument = (count: number) =>
  JSON.stringify({ query: `{ ${Array.from({ length: count }, (_, i) => `a${i}: reports(limit: 0) { total }`).join(' ')} }` });

/** N1 of issue 22: 592 tokens of keyless introspection whose answer was 319 MB. */
const repeatText = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join(' ');
const INTROSPECTION_BOMB = JSON.stringify({
  query:
    `{__schema{${repeatText(25, (i) => `t${i}:types{...T}`)}}} fragment T on __Type{${repeatText(25, (i) => `f${i}:fields{...F}`)}} ` +
    `fragment F on __Field{${repeatText(75, (i) => `n${i}:name`)}}`,
});

/** Every leaf of a type, as a selection (a report's `data` has ~220). */
function wholeSelection(type: GraphQLObjectType): string {
  return Object.values(type.getFields())
    .filter((field) => field.args.length === 0)
    .map((field) => {
      const named = getNamedType(field.type);
      return isObjectType(named) ? `${field.name} { ${wholeSelection(named)} }` : field.name;
    })
    .join(' ');
}

/**
 * N2 of issue 22: documents that would be costly to compile, each distinct (the alias names
 * vary), each sent twice (a second sighting is what gets a document compiled): 20 reports, each
 * selecting its whole `data` through a fragment (~5,200 fields, under the 10,000 bound).
 */
async function compileBombs(count: number): Promise<string[]> {
  const schema = await buildAppSchema();
  const data = wholeSelection(schema.getType('ReportData') as GraphQLObjectType);
  return Array.from({ length: count }, (_, n) => {
    const query =
      `query Bomb${n} { ${repeatText(20, (i) => `r${n}_${i}: report(report_id: "00000000-0000-4000-8000-000000000000") { ...D }`)} } ` +
      `fragment D on Report { data { ${data} } }`;
    return JSON.stringify({ query });
  }).flatMap((body) => [body, body]);
}

/**
 * N2 at the compilation bound: one report's whole `data` (~260 fields, under the 400 that are
 * compiled), each document distinct and sent twice, so that every second request compiles.
 */
async function compilableDocuments(count: number): Promise<string[]> {
  const schema = await buildAppSchema();
  const data = wholeSelection(schema.getType('ReportData') as GraphQLObjectType);
  return Array.from({ length: count }, (_, n) => {
    const query = `query Compiled${n} { r${n}: report(report_id: "00000000-0000-4000-8000-000000000000") { data { ${data} } } }`;
    return JSON.stringify({ query });
  }).flatMap((body) => [body, body]);
}

/** N6 of issue 22: a lead body of 95 kB, sent with a wrong key. */
const BIG_LEAD = JSON.stringify({
  dealership: '00000000-0000-4000-8000-000000000000',
  name: 'x'.repeat(Number(process.env.N6_BODY ?? 95_000)),
});

interface Attack {
  name: string;
  attackers: number;
  /** the attackers use another organization's API key; false: no key; 'wrong': a key that does not exist */
  keyed: boolean | 'wrong';
  body: string;
  /** bodies sent in turn instead of `body` (made once, before the runs) */
  bodies?: () => Promise<string[]>;
  /** where the attackers send (default /graphql) */
  path?: string;
  /** connections per attacker (default 1) */
  connections?: number;
  /** server variables of this scenario */
  env?: Record<string, string>;
  /** the attackers' budget is spent before the timing starts: every answer they get is a 429 */
  spentFirst?: boolean;
}

const UNLIMITED = '1000000000';

const ATTACKS: Attack[] = [
  { name: 'victim alone', attackers: 0, keyed: false, body: '' },
  { name: '4 keyless clients, 2,500-alias documents', attackers: 4, keyed: false, body: aliasDocument(2_500) },
  { name: '12 keyless clients, 2,500-alias documents', attackers: 12, keyed: false, body: aliasDocument(2_500) },
  {
    name: '4 keyless clients, keyless throttle off',
    attackers: 4,
    keyed: false,
    body: aliasDocument(2_500),
    env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: UNLIMITED },
  },
  { name: '4 clients of one other tenant, widest allowed operation (20 lists)', attackers: 4, keyed: true, body: aliasDocument(20) },
  { name: '16 clients of one other tenant, widest allowed operation', attackers: 16, keyed: true, body: aliasDocument(20) },
  {
    name: '4 clients of one other tenant, widest operation, budget unlimited',
    attackers: 4,
    keyed: true,
    body: aliasDocument(20),
    env: { RATE_LIMIT_PER_MINUTE: UNLIMITED },
  },
  {
    name: '4 clients of one other tenant whose budget is spent (what a 429 costs)',
    attackers: 4,
    keyed: true,
    body: aliasDocument(20),
    spentFirst: true,
  },
  { name: 'N1: 4 keyless clients, the 319 MB introspection document', attackers: 4, keyed: false, body: INTROSPECTION_BOMB },
  {
    name: 'N2: 4 clients of one other tenant, distinct compile-forcing documents, each sent twice',
    attackers: 4,
    keyed: true,
    body: '',
    // The tenant's own budget (RATE_LIMIT_PER_MINUTE 3,000): the finding's 'under one minute of one organization's budget'.
    bodies: () => compileBombs(2_000),
  },
  {
    name: "N2 again, the attacker's budget unlimited",
    attackers: 4,
    keyed: true,
    body: '',
    bodies: () => compileBombs(2_000),
    env: { RATE_LIMIT_PER_MINUTE: UNLIMITED },
  },
  {
    name: 'N6: 40 addresses x 50 connections, wrong keys, 95 kB lead bodies',
    attackers: 40,
    connections: 50,
    keyed: 'wrong',
    body: BIG_LEAD,
    path: '/public/reports/create-lead',
  },
  {
    name: 'N2 at the compilation bound: 4 clients of one other tenant, distinct 260-field documents, each sent twice',
    attackers: 4,
    keyed: true,
    body: '',
    bodies: () => compilableDocuments(2_000),
  },
];

/** The process's peak resident memory (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

/** The process's resident memory now (VmRSS, MB) and its open descriptors. */
function residue(pid: number): { rssMb: number; descriptors: number } {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { rssMb: line ? Number(line[1]) / 1024 : NaN, descriptors: readdirSync(`/proc/${pid}/fd`).length };
}

/** A server to measure: this checkout's or another's, with its own variables. */
interface Variant {
  label: string;
  appServer: string;
  env: Record<string, string>;
}

/** --cpu-prof DIR */
let cpuProfileDir = '';
/** --node-arg ARG (repeatable) */
let serverNodeArgs: string[] = [];
/** --timeline */
let showTimeline = false;
/** --settle S: seconds */
let settleSeconds = 0;

function startApp(variant: Variant, databaseUrl: string, env: Record<string, string>) {
  const child = fork(variant.appServer, [], {
    cwd: path.dirname(path.dirname(variant.appServer)),
    execArgv: ['--import', 'tsx', ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []), ...serverNodeArgs],
    env: {
      ...process.env,
      // As the image runs it (its allocator setting); `--env` / `--also` may override it.
      ...IMAGE_ENVIRONMENT,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      METRICS_TOKEN: `bench-${process.pid}`,
      TRUST_PROXY: 'loopback',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '60',
      ...env,
      ...variant.env,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<{ url: string; child: typeof child }>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ url: `http://127.0.0.1:${message.port}`, child }));
    child.once('exit', (code) => reject(new Error(`app exited with ${code}`)));
  });
}

/** One load generator process, loaded and waiting: `start` runs `clients` for `duration` seconds. */
async function loadGenerator(): Promise<{ start: (clients: ClientSpec[], duration: number) => Promise<LoadResult> }> {
  const child = fork(path.join(__dirname, 'load-client.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`load client exited with ${code}`)))),
  );
  exited.catch(() => undefined);
  await Promise.race([new Promise((resolve) => child.once('message', resolve)), exited]);
  return {
    start: (clients, duration) => {
      const answered = new Promise<LoadResult>((resolve) => child.once('message', (result: LoadResult) => resolve(result)));
      child.send({ clients, duration });
      return Promise.race([answered, exited]);
    },
  };
}

interface RunResult {
  p50: number;
  p95: number;
  victimRate: number;
  victimStatuses: Map<number, number>;
  attackerStatuses: Map<number, number>;
  attackerRate: number;
  serverCpuPerRequest: number;
  /** share of one core */
  serverCpu: number;
  attackerClientCpu: number;
  /** the server's peak resident memory since it started (VmHWM) */
  peakRssMb: number;
  /** --settle: before the load (after the warm-up), and that long after it */
  idle?: { rssMb: number; descriptors: number };
  settled?: { rssMb: number; descriptors: number };
}

const addStatuses = (into: Map<number, number>, statuses: Record<number, number>) => {
  for (const [status, n] of Object.entries(statuses)) into.set(Number(status), (into.get(Number(status)) ?? 0) + n);
};
const formatStatuses = (statuses: Map<number, number>) => [...statuses].map(([s, n]) => `${s}×${n}`).join(' ') || '-';
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

/**
 * A fresh server's first requests compile (JIT, Prisma's first queries): 50 of the victim's and
 * 5 of one attacker's, one at a time, before anything is timed (and, for `spentFirst`, the
 * attacker's budget spent).
 */
async function warmUp(victim: ClientSpec, attacker: ClientSpec | undefined, spendBudget: boolean): Promise<void> {
  const send = (client: ClientSpec) => fetch(client.url, { method: client.method ?? 'GET', headers: client.headers, body: client.body });
  for (let i = 0; i < 50; i++) await (await send(victim)).arrayBuffer();
  for (let i = 0; attacker && i < 5; i++) await (await send(attacker)).arrayBuffer();
  // Until refused, with its whole budget of one minute: longer than any run.
  while (attacker && spendBudget) {
    const response = await send(attacker);
    await response.arrayBuffer();
    if (response.status === 429) break;
  }
}

async function runOnce(
  variant: Variant,
  attack: Attack,
  databaseUrl: string,
  keys: { victim: string; attacker: string },
  duration: number,
  extraEnv: Record<string, string>,
): Promise<RunResult> {
  const app = await startApp(variant, databaseUrl, { ...attack.env, ...extraEnv });
  try {
    const victimClient: ClientSpec = {
      url: `${app.url}/public/reports/?limit=20`,
      headers: { 'x-api-key': keys.victim, 'x-forwarded-for': '198.51.100.1' },
      // A steady 10 requests/s: well within the victim's own budget (3,000 points a minute).
      connections: 1,
      overallRate: VICTIM_RATE,
    };
    const bodies = attack.bodies ? await attack.bodies() : undefined;
    const attackerClients: ClientSpec[] = Array.from({ length: attack.attackers }, (_, i) => ({
      url: `${app.url}${attack.path ?? '/graphql'}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `203.0.113.${i + 1}`,
        ...(attack.keyed === true ? { 'x-api-key': keys.attacker } : {}),
        ...(attack.keyed === 'wrong' ? { 'x-api-key': `vr_live_${String(i).padStart(32, 'w')}` } : {}),
      },
      body: attack.body,
      // Each attacker its own share of the documents, all distinct.
      ...(bodies ? { bodies: bodies.filter((_body, n) => Math.floor(n / 2) % attack.attackers === i) } : {}),
      connections: attack.connections ?? 1,
    }));
    await warmUp(victimClient, attackerClients[0], attack.spentFirst ?? false);
    const [victimLoad, attackerLoad] = await Promise.all([loadGenerator(), attackerClients.length > 0 ? loadGenerator() : undefined]);
    const idle = settleSeconds > 0 ? residue(app.child.pid!) : undefined;
    const cpuBefore = cpuMs(app.child.pid!);
    if (showTimeline) log(`  load starts at ${new Date().toISOString()}`);
    const [victim, attackers] = await Promise.all([
      victimLoad.start([victimClient], duration),
      attackerLoad ? attackerLoad.start(attackerClients, duration) : { clients: [], cpuMs: 0 },
    ]);
    const cpu = cpuMs(app.child.pid!) - cpuBefore;
    const peakRss = peakRssMb(app.child.pid!);
    if (settleSeconds > 0) await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1000));
    const settled = settleSeconds > 0 ? residue(app.child.pid!) : undefined;
    if (showTimeline) {
      const { latencies: times, answeredAt } = victim.clients[0]!;
      const slowest = times
        .map((ms, i) => ({ ms, at: answeredAt[i]! / 1000 }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 8);
      log(`  victim's slowest: ${slowest.map((s) => `${s.ms.toFixed(0)} ms at ${s.at.toFixed(1)} s`).join(', ')}`);
    }
    const latencies = [...victim.clients[0]!.latencies].sort((a, b) => a - b);
    const victimStatuses = new Map<number, number>();
    addStatuses(victimStatuses, victim.clients[0]!.statuses);
    const attackerStatuses = new Map<number, number>();
    for (const client of attackers.clients) addStatuses(attackerStatuses, client.statuses);
    const attackerAnswers = [...attackerStatuses.values()].reduce((a, b) => a + b, 0);
    return {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      victimRate: latencies.length / duration,
      victimStatuses,
      attackerStatuses,
      attackerRate: attackerAnswers / duration,
      serverCpuPerRequest: cpu / Math.max(latencies.length + attackerAnswers, 1),
      serverCpu: cpu / (duration * 1000),
      attackerClientCpu: attackers.cpuMs / (duration * 1000),
      peakRssMb: peakRss,
      idle,
      settled,
    };
  } finally {
    app.child.kill();
    await new Promise((resolve) => app.child.once('exit', resolve));
  }
}

function summary(scenario: string, variant: Variant | undefined, runs: RunResult[]): string[] {
  const typical = [...runs].sort((a, b) => a.p95 - b.p95)[Math.floor((runs.length - 1) / 2)]!;
  return [
    variant ? `${scenario} [${variant.label}]` : scenario,
    typical.victimRate.toFixed(0),
    median(runs.map((r) => r.p50)).toFixed(1),
    median(runs.map((r) => r.p95)).toFixed(1),
    runs.map((r) => r.p95.toFixed(0)).join(' / '),
    formatStatuses(typical.victimStatuses),
    formatStatuses(typical.attackerStatuses),
    typical.attackerRate.toFixed(0),
    median(runs.map((r) => r.serverCpuPerRequest)).toFixed(2),
    `${(median(runs.map((r) => r.serverCpu)) * 100).toFixed(0)} %`,
    `${(median(runs.map((r) => r.attackerClientCpu)) * 100).toFixed(0)} %`,
    Math.max(...runs.map((r) => r.peakRssMb)).toFixed(0),
    ...(settleSeconds > 0
      ? [
          runs.map((r) => `${r.idle!.rssMb.toFixed(0)} → ${r.settled!.rssMb.toFixed(0)}`).join(' / '),
          runs.map((r) => `${r.idle!.descriptors} → ${r.settled!.descriptors}`).join(' / '),
        ]
      : []),
  ];
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const option = (name: string, fallback: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1]! : fallback;
  };
  const reports = Number(option('--reports', '20000'));
  cpuProfileDir = option('--cpu-prof', '');
  showTimeline = argv.includes('--timeline');
  settleSeconds = Number(option('--settle', '0'));
  serverNodeArgs = argv.flatMap((arg) => (arg.startsWith('--node-arg=') ? [arg.slice('--node-arg='.length)] : []));
  const duration = Number(option('--duration', '10'));
  const repeat = Number(option('--repeat', '3'));
  const chosen = option('--scenarios', '')
    .split(',')
    .filter((s) => s !== '')
    .map(Number);
  const extraEnv = Object.fromEntries(
    argv.flatMap((arg, i) => (argv[i - 1] === '--env' ? [[arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]] : [])),
  ) as Record<string, string>;
  const here: Variant = { label: 'this checkout', appServer: path.join(__dirname, 'app-server.ts'), env: {} };
  const compare = option('--compare', '');
  const variants: Variant[] = [
    ...(compare ? [{ label: path.basename(path.resolve(compare)), appServer: path.resolve(compare, 'bench/app-server.ts'), env: {} }] : []),
    here,
    ...argv.flatMap((arg, i) => {
      if (argv[i - 1] !== '--also') return [];
      const env = Object.fromEntries(arg.split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
      return [{ ...here, label: `this checkout, ${arg}`, env }];
    }),
  ];
  const attacks = ATTACKS.map((attack, i) => ({ ...attack, number: i + 1 })).filter(
    (a) => chosen.length === 0 || chosen.includes(a.number),
  );

  const scratch = `vr_bench_abuse_${Date.now()}`;
  await adminQuery(`CREATE DATABASE ${scratch}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${scratch}`;
  const databaseUrl = url.toString();
  const rows: string[][] = [];
  try {
    const db = await openDatabase({ url: databaseUrl });
    await db.withSession((session) => applyMigrations(session));
    log(`loading ${reports} reports`);
    await loadBenchData(databaseUrl, reports, log);
    const organizations = await db.prisma.organization.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
    const keys = {
      victim: (await issueApiKey(db.prisma, organizations[0]!.id, 'bench', 'victim')).key,
      attacker: (await issueApiKey(db.prisma, organizations[1]!.id, 'bench', 'attacker')).key,
    };
    await db.close();

    for (const attack of attacks) {
      // Run by run, each variant in turn: a change of the machine's load falls on all of them.
      const runs = new Map<Variant, RunResult[]>(variants.map((v) => [v, []]));
      for (let i = 0; i < repeat; i++) {
        for (const variant of variants) {
          const result = await runOnce(variant, attack, databaseUrl, keys, duration, extraEnv);
          runs.get(variant)!.push(result);
          log(
            `${attack.number}. ${attack.name} [${variant.label}], run ${i + 1}: p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms`,
          );
        }
      }
      for (const [variant, results] of runs)
        rows.push(summary(`${attack.number}. ${attack.name}`, variants.length > 1 ? variant : undefined, results));
    }
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await adminQuery(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
  const head = [
    'scenario',
    'victim req/s',
    'victim p50 ms',
    'victim p95 ms',
    'p95 of each run',
    'victim statuses',
    'attacker statuses',
    'attacker req/s',
    'server CPU ms/req',
    'server CPU',
    'attackers’ client CPU',
    'server peak RSS MB (max of runs)',
    ...(settleSeconds > 0
      ? [`RSS MB, idle → ${settleSeconds} s after (each run)`, `descriptors, idle → ${settleSeconds} s after (each run)`]
      : []),
  ];
  const extra = Object.entries(extraEnv).map(([k, v]) => `${k}=${v}`);
  console.log(
    `\n${reports} reports, ${duration} s per run, ${repeat} runs per scenario (medians; statuses of the median run)` +
      `${extra.length ? `, server with ${extra.join(' ')}` : ''}; victim: ${VICTIM_RATE} requests/s reading 20 reports\n`,
  );
  console.log(
    `| ${head.join(' | ')} |\n|---|${head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  );
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
