/**
 * Fetch-one over many distinct reports, the way a sync client or a dashboard reads them (the other
 * benchmarks fetch one sample report again and again): two running servers (A and B, e.g. a
 * worktree of the base commit and this checkout, each `bench/app-server.ts` on its own port over
 * the same database), each given its own random reports of the largest organization, read once,
 * then the same ones again twice. Prints each pass's server CPU (the listening process, /proc) and
 * PostgreSQL CPU (the backends serving that process, as in `--peers`: what writes cost later in
 * PostgreSQL's background processes, WAL writer, checkpointer, autovacuum, is not counted) per
 * request: what reading a report once, twice and more costs (`--peers` has the first reads against
 * PostGraphile).
 *
 *   npx tsx bench/distinct-reports.ts --database-url <url> --a <port>:<api key> --b <port>:<api key> [--reports 3000] [--rounds 2]
 */
import { execSync } from 'node:child_process';
import autocannon from 'autocannon';
import pg from 'pg';
import { backendCpuWindow } from './peers/pg-backends';
import { cpuMs, log } from './support';

interface Side {
  port: number;
  key: string;
}

function parseOptions(argv: string[]) {
  const value = (name: string) => {
    const index = argv.indexOf(name);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const side = (name: string): Side => {
    const [port, key] = (value(name) ?? '').split(':');
    if (!port || !key) throw new Error(`${name} <port>:<api key> is required`);
    return { port: Number(port), key };
  };
  const databaseUrl = value('--database-url');
  if (!databaseUrl) throw new Error('--database-url is required');
  return {
    databaseUrl,
    a: side('--a'),
    b: side('--b'),
    reports: Number(value('--reports') ?? 3000),
    rounds: Number(value('--rounds') ?? 2),
  };
}

const pidListeningOn = (port: number) =>
  Number(
    execSync(`ss -ltnpH 'sport = :${port}'`)
      .toString()
      .match(/pid=(\d+)/)?.[1],
  );

/** Reads each report once, 10 connections; CPU per request after the background work settled. */
async function pass(databaseUrl: string, side: Side, tokens: string[]) {
  const pid = pidListeningOn(side.port);
  await new Promise((resolve) => setTimeout(resolve, 3000)); // the previous pass's writes settle
  const backends = backendCpuWindow(databaseUrl, pid);
  await backends.start();
  const server = cpuMs(pid);
  let next = 0;
  let unexpected = 0;
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${side.port}`,
        connections: 10,
        amount: tokens.length,
        headers: { 'x-api-key': side.key },
        requests: [{ setupRequest: (request) => ({ ...request, path: `/public/reports/${tokens[next++ % tokens.length]}` }) }],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on('response', (_client: unknown, status: number) => {
      if (status !== 200) unexpected += 1;
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 1500)); // writes made after the answers
  const n = tokens.length;
  const serverMs = (cpuMs(pid) - server) / n;
  const postgresMs = (await backends.stop()) / n;
  await backends.close();
  return `| ${serverMs.toFixed(3)} | ${postgresMs.toFixed(3)} | ${(serverMs + postgresMs).toFixed(3)} | ${unexpected} |`;
}

const WARM_UP = 1000;

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ token: string }>(
    `SELECT token FROM reports WHERE organization_id = (SELECT organization_id FROM reports GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)
     ORDER BY random() LIMIT $1`,
    [options.reports * 2 * options.rounds + WARM_UP],
  );
  const warmUp = rows.splice(0, WARM_UP).map((row) => row.token);
  await client.end();
  const tokens = rows.map((row) => row.token);
  // Both processes compiled and warm first (on other reports: B keeps none of them, read once).
  log('warming up');
  for (const side of [options.a, options.b]) await pass(options.databaseUrl, side, warmUp);
  const slice = (index: number) => tokens.slice(index * options.reports, (index + 1) * options.reports);
  console.log('| pass | server CPU ms/req | PostgreSQL CPU ms/req | total | not 200 |\n|---|---:|---:|---:|---:|');
  for (let round = 0; round < options.rounds; round += 1) {
    const [a, b] = [slice(2 * round), slice(2 * round + 1)];
    log(`round ${round + 1}/${options.rounds}`);
    console.log(`| ${round + 1}. A, each report once ${await pass(options.databaseUrl, options.a, a)}`);
    console.log(`| ${round + 1}. B, each report once ${await pass(options.databaseUrl, options.b, b)}`);
    console.log(`| ${round + 1}. B, the same again ${await pass(options.databaseUrl, options.b, b)}`);
    console.log(`| ${round + 1}. B, the same a third time ${await pass(options.databaseUrl, options.b, b)}`);
    console.log(`| ${round + 1}. A, the same again ${await pass(options.databaseUrl, options.a, a)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
