/**
 * A private PostgreSQL 15 server for the load test, in its own folder and on its own port, so the
 * run can restart it (`pg_ctl restart -m fast`) without touching the shared server on 5432 that
 * other people's tests use. initdb and postgres refuse to run as root: when we are root, the
 * binaries run as the `postgres` OS user, which owns the data folder.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './net';

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const DATABASE = 'vehicle_report_loadtest';

export interface PrivatePostgres {
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: every client connection is closed, the server is back when this resolves */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function pgCommand(binary: string, args: string[]) {
  const file = path.join(PG_BIN, binary);
  return isRoot() ? run('runuser', ['-u', 'postgres', '--', file, ...args]) : run(file, args);
}

/** `dir` must exist and be empty; the server's data, socket and log go inside it. */
export async function startPrivatePostgres(dir: string): Promise<PrivatePostgres> {
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  mkdirSync(dataDir, { recursive: true });
  // The parent folders must be traversable by the postgres user; the data folder must be its own.
  if (isRoot()) await run('chown', ['-R', 'postgres:postgres', dir]);

  await pgCommand('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  // Durability is not what this test measures: fsync off keeps the 2 shared cores for the load.
  const serverOptions = [
    `-c port=${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
    '-c shared_buffers=128MB',
  ].join(' ');
  await pgCommand('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions]);

  const admin = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }

  let stopped = false;
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/${DATABASE}`,
    port,
    // pg_ctl restart reuses the options of the running server (postmaster.opts).
    restart: async () => {
      await pgCommand('pg_ctl', ['restart', '-D', dataDir, '-m', 'fast', '-w', '-t', '60', '-l', logFile]);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pgCommand('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30']).catch(() =>
        pgCommand('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w', '-t', '30']),
      );
    },
  };
}

/** Restart of an external server: the command the user gave, through the shell. */
export async function runRestartCommand(command: string): Promise<void> {
  await run('sh', ['-c', command]);
}
