/**
 * A real PostgreSQL 15 primary, a hot standby made from it with `pg_basebackup -R` (streaming
 * replication), and PgBouncer in transaction mode in front of the primary: each on a free port,
 * everything under one folder. Used by test/replicas and by the load test's replica topology.
 *
 * initdb, postgres and pgbouncer refuse to run as root: when we are root they run as the
 * `postgres` OS user, which then owns the folder. `stop()` stops whatever was started and removes
 * the folder; a failed start stops what it had started before rethrowing.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, sleep } from './net';

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const PGBOUNCER = process.env.PGBOUNCER_BIN || '/usr/sbin/pgbouncer';
export const CLUSTER_DATABASE = 'vehicle_report';
/** What PgBouncer sets on every server connection it opens (the app cannot send it through PgBouncer). */
export const PGBOUNCER_STATEMENT_TIMEOUT_MS = 30_000;

const isRoot = () => process.getuid?.() === 0;

function asPostgres(file: string, args: string[]) {
  return isRoot() ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

export interface ReplicationCluster {
  dir: string;
  /** PostgreSQL primary itself (migrations, seeding, test assertions). */
  primaryUrl: string;
  /** The hot standby. */
  standbyUrl: string;
  /** PgBouncer (transaction mode) in front of the primary, with `?pgbouncer=true` for the app. */
  pgbouncerUrl?: string;
  /** Stops the standby (`pg_ctl stop -m fast`: its connections are closed). */
  stopStandby(): Promise<void>;
  /** Starts it again with the same settings. */
  startStandby(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  waitForStandbyToCatchUp(timeoutMs?: number): Promise<void>;
  /** Runs one statement on a server, over a short-lived connection. */
  query<Row = Record<string, unknown>>(url: string, sql: string, params?: unknown[]): Promise<Row[]>;
  stop(): Promise<void>;
}

export async function query<Row = Record<string, unknown>>(url: string, sql: string, params?: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A connection the server or a proxy cuts (HAProxy shuts the sessions of a server it marks
  // down, as it does with every node while its first health checks run) rejects the pending call;
  // the client also emits 'error', which without a listener killed the process: a Patroni start
  // (`npm run patroni -- --check`) died so, leaving its nodes running, and it is the likeliest
  // cause of the CI run whose failover test's start never finished.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, params as unknown[])).rows as Row[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

function serverOptions(port: number, socketDir: string): string {
  // Durability is not what these runs measure: fsync off keeps the 2 shared cores for the work.
  return [
    `-c port=${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${socketDir}`,
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
    '-c shared_buffers=64MB',
    '-c wal_level=replica',
    '-c max_wal_senders=5',
    '-c hot_standby=on',
    // Where statements ran is what the tests check: pg_stat_statements on each server.
    '-c shared_preload_libraries=pg_stat_statements',
    '-c pg_stat_statements.track=all',
  ].join(' ');
}

export async function startReplicationCluster(options: { pgbouncer?: boolean; parentDir?: string } = {}): Promise<ReplicationCluster> {
  const dir = mkdtempSync(path.join(options.parentDir ?? os.tmpdir(), 'vr-replicas-'));
  const undo: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (let step = undo.pop(); step; step = undo.pop()) await step().catch(() => undefined);
  };
  try {
    const primaryDir = path.join(dir, 'primary');
    const standbyDir = path.join(dir, 'standby');
    mkdirSync(primaryDir);
    if (isRoot()) await run('chown', ['-R', 'postgres:postgres', dir]);
    const [primaryPort, standbyPort, bouncerPort] = [await freePort(), await freePort(), await freePort()];

    await asPostgres(path.join(PG_BIN, 'initdb'), ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    const startServer = (dataDir: string, port: number, log: string) =>
      asPostgres(path.join(PG_BIN, 'pg_ctl'), [
        'start',
        '-D',
        dataDir,
        '-l',
        path.join(dir, log),
        '-w',
        '-t',
        '60',
        '-o',
        serverOptions(port, dir),
      ]);
    const stopServer = (dataDir: string) =>
      asPostgres(path.join(PG_BIN, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30']).catch(() =>
        asPostgres(path.join(PG_BIN, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '30']),
      );
    await startServer(primaryDir, primaryPort, 'primary.log');
    undo.push(() => stopServer(primaryDir));

    const server = (port: number, database = CLUSTER_DATABASE) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
    await query(server(primaryPort, 'postgres'), `CREATE DATABASE ${CLUSTER_DATABASE}`);
    await query(server(primaryPort), 'CREATE EXTENSION pg_stat_statements');

    // The standby: a base backup streamed from the primary; -R writes standby.signal and primary_conninfo.
    await asPostgres(path.join(PG_BIN, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standbyDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    let standbyRunning = false;
    const startStandby = async () => {
      await startServer(standbyDir, standbyPort, 'standby.log');
      standbyRunning = true;
    };
    const stopStandby = async () => {
      if (!standbyRunning) return;
      await stopServer(standbyDir);
      standbyRunning = false;
    };
    await startStandby();
    undo.push(stopStandby);

    let pgbouncerUrl: string | undefined;
    if (options.pgbouncer) {
      const ini = path.join(dir, 'pgbouncer.ini');
      const pidFile = path.join(dir, 'pgbouncer.pid');
      writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
      writeFileSync(
        ini,
        [
          '[databases]',
          // Every server connection gets the API's statement timeout (a start-up parameter would be refused).
          `${CLUSTER_DATABASE} = host=127.0.0.1 port=${primaryPort} dbname=${CLUSTER_DATABASE} connect_query='SET statement_timeout = ${PGBOUNCER_STATEMENT_TIMEOUT_MS}'`,
          '[pgbouncer]',
          'listen_addr = 127.0.0.1',
          `listen_port = ${bouncerPort}`,
          `unix_socket_dir = ${dir}`,
          'auth_type = trust',
          `auth_file = ${path.join(dir, 'userlist.txt')}`,
          'pool_mode = transaction',
          'max_client_conn = 500',
          'default_pool_size = 20',
          'ignore_startup_parameters = extra_float_digits',
          `logfile = ${path.join(dir, 'pgbouncer.log')}`,
          `pidfile = ${pidFile}`,
          '',
        ].join('\n'),
      );
      if (isRoot()) await run('chown', ['-R', 'postgres:postgres', dir]);
      await asPostgres(PGBOUNCER, ['-d', ini]);
      undo.push(async () => {
        const pid = Number(readFileSync(pidFile, 'utf8').trim());
        process.kill(pid, 'SIGINT');
        for (let i = 0; i < 50; i += 1) {
          try {
            process.kill(pid, 0);
          } catch {
            return;
          }
          await sleep(100);
        }
        process.kill(pid, 'SIGKILL');
      });
      pgbouncerUrl = `${server(bouncerPort)}?pgbouncer=true`;
      // Up once it answers a query through to the primary.
      for (let attempt = 0; ; attempt += 1) {
        try {
          await query(server(bouncerPort), 'SELECT 1');
          break;
        } catch (error) {
          if (attempt > 50) throw error;
          await sleep(100);
        }
      }
    }

    const primaryUrl = server(primaryPort);
    const standbyUrl = server(standbyPort);
    return {
      dir,
      primaryUrl,
      standbyUrl,
      pgbouncerUrl,
      stopStandby,
      startStandby,
      query,
      async waitForStandbyToCatchUp(timeoutMs = 30_000) {
        const [{ lsn }] = await query<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const [row] = await query<{ caught_up: boolean }>(standbyUrl, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up', [
            lsn,
          ]).catch(() => [{ caught_up: false }]);
          if (row?.caught_up) return;
          if (Date.now() > deadline) throw new Error(`standby did not replay up to ${lsn} within ${timeoutMs} ms`);
          await sleep(100);
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
