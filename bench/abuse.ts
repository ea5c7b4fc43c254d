/**
 * `npm run bench:abuse` (tsx bench/abuse.ts): what attackers cost another tenant. Loads N reports
 * into a scratch PostgreSQL database, starts the real app (bench/app-server.ts, production
 * settings) and, for each scenario, measures a victim tenant's steady reads (GET /public/reports/?limit=20)
 * while attackers send their requests, each attacker from its own client address
 * (X-Forwarded-For, with TRUST_PROXY=loopback as behind HAProxy). Prints one table: the victim's
 * req/s and latency, what the attackers were answered, and the server's CPU ms per request.
 *
 *   --reports N     reports to load (default 20000)
 *   --duration S    seconds per scenario (default 10)
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { issueApiKey } from '../src/features/auth/api-keys';
import { openDatabase } from '../src/platform/db/database';
import { applyMigrations } from '../src/platform/db/migrations/apply';
import { loadBenchData } from './load';
import { ADMIN_URL, adminQuery, cpuMs, log, percentile } from './support';

/** the victim's requests per second */
const VICTIM_RATE = 10;

const aliasDocument = (count: number) =>
  JSON.stringify({ query: `{ ${Array.from({ length: count }, (_, i) => `a${i}: reports(limit: 0) { total }`).join(' ')} }` });

interface Attack {
  name: string;
  attackers: number;
  /** the attackers' API key: undefined for keyless attackers */
  keyed: boolean;
  body: string;
  /** ANONYMOUS_RATE_LIMIT_PER_MINUTE of the server for this scenario */
  anonymousPerMinute: number;
}

const ATTACKS: Attack[] = [
  { name: 'victim alone', attackers: 0, keyed: false, body: '', anonymousPerMinute: 60 },
  { name: '4 keyless clients, 2,500-alias documents', attackers: 4, keyed: false, body: aliasDocument(2_500), anonymousPerMinute: 60 },
  { name: '12 keyless clients, 2,500-alias documents', attackers: 12, keyed: false, body: aliasDocument(2_500), anonymousPerMinute: 60 },
  {
    name: '4 keyless clients, keyless throttle off',
    attackers: 4,
    keyed: false,
    body: aliasDocument(2_500),
    anonymousPerMinute: 1_000_000_000,
  },
  {
    name: '4 clients of one other tenant, widest allowed operation (20 lists)',
    attackers: 4,
    keyed: true,
    body: aliasDocument(20),
    anonymousPerMinute: 60,
  },
];

function startApp(databaseUrl: string, anonymousPerMinute: number): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(path.join(__dirname, 'app-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      METRICS_TOKEN: `bench-${process.pid}`,
      TRUST_PROXY: 'loopback',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(anonymousPerMinute),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ url: `http://127.0.0.1:${message.port}`, child }));
    child.once('exit', (code) => reject(new Error(`app exited with ${code}`)));
  });
}

interface Load {
  latencies: number[];
  statuses: Map<number, number>;
}

function run(options: autocannon.Options): { done: Promise<void>; load: Load } {
  const load: Load = { latencies: [], statuses: new Map() };
  const done = new Promise<void>((resolve, reject) => {
    const instance = autocannon(options, (error) => (error ? reject(error) : resolve()));
    instance.on('response', (_client: unknown, status: number, _bytes: number, time: number) => {
      load.latencies.push(time);
      load.statuses.set(status, (load.statuses.get(status) ?? 0) + 1);
    });
  });
  return { done, load };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const at = argv.indexOf(name);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  const reports = option('--reports', 20_000);
  const duration = option('--duration', 10);
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
    const victimKey = (await issueApiKey(db.prisma, organizations[0]!.id, 'bench', 'victim')).key;
    const attackerKey = (await issueApiKey(db.prisma, organizations[1]!.id, 'bench', 'attacker')).key;
    await db.close();

    for (const attack of ATTACKS) {
      log(`${attack.name} …`);
      const app = await startApp(databaseUrl, attack.anonymousPerMinute);
      try {
        const cpuBefore = cpuMs(app.child.pid!);
        const victim = run({
          url: `${app.url}/public/reports/?limit=20`,
          headers: { 'x-api-key': victimKey, 'x-forwarded-for': '198.51.100.1' },
          // A steady 10 requests/s: well within the victim's own budget (3,000 points a minute).
          connections: 1,
          overallRate: VICTIM_RATE,
          duration,
        });
        const attackers = Array.from({ length: attack.attackers }, (_, i) =>
          run({
            url: `${app.url}/graphql`,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': `203.0.113.${i + 1}`,
              ...(attack.keyed ? { 'x-api-key': attackerKey } : {}),
            },
            body: attack.body,
            connections: 1,
            duration,
          }),
        );
        await Promise.all([victim.done, ...attackers.map((a) => a.done)]);
        const cpu = cpuMs(app.child.pid!) - cpuBefore;
        const sorted = [...victim.load.latencies].sort((a, b) => a - b);
        const attackerStatuses = new Map<number, number>();
        for (const a of attackers)
          for (const [status, n] of a.load.statuses) attackerStatuses.set(status, (attackerStatuses.get(status) ?? 0) + n);
        const answered = victim.load.latencies.length + [...attackerStatuses.values()].reduce((a, b) => a + b, 0);
        rows.push([
          attack.name,
          (victim.load.latencies.length / duration).toFixed(0),
          percentile(sorted, 50).toFixed(1),
          percentile(sorted, 95).toFixed(1),
          [...victim.load.statuses].map(([s, n]) => `${s}×${n}`).join(' '),
          [...attackerStatuses].map(([s, n]) => `${s}×${n}`).join(' ') || '-',
          (cpu / Math.max(answered, 1)).toFixed(2),
        ]);
      } finally {
        app.child.kill();
      }
    }
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await adminQuery(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
  const head = ['scenario', 'victim req/s', 'victim p50 ms', 'victim p95 ms', 'victim statuses', 'attacker statuses', 'server CPU ms/req'];
  console.log(`\n${reports} reports, ${duration} s per scenario; victim: ${VICTIM_RATE} requests/s reading 20 reports\n`);
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
