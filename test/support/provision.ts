/**
 * What the suite needs on the machine, found or provided before any test runs (jest globalSetup),
 * one line each: PostgreSQL (the server at TEST_DATABASE_URL when it answers, else a private
 * PostgreSQL 15 started from Debian's binaries in a temp folder), Redis (TEST_REDIS_URL when it
 * answers, else Debian's redis-server on a free port), Chromium, PgBouncer, Patroni, etcd,
 * HAProxy and Prometheus (installed with apt when we are root). Nothing is ever skipped: what cannot be provided fails the run with the exact
 * command that would provide it. URLs reach the test workers through the environment.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import pg from 'pg';
import { freePort, waitFor } from '../../loadtest/net';
import { startPrivatePostgres, type PrivatePostgres } from '../../loadtest/postgres-server';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
const REDIS_SERVER = '/usr/bin/redis-server';

export interface Provisioned {
  lines: string[];
  stop(): Promise<void>;
}

const isRoot = () => process.getuid?.() === 0;
const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A Debian package's binary: there, installed with apt when we are root, or a clear failure. */
function debianBinary(what: string, binary: string, debianPackage: string): string {
  if (existsSync(binary)) return `${what}: using ${binary}`;
  const command = `apt-get install -y ${debianPackage}`;
  if (!isRoot()) throw new Error(`${what} is missing (${binary}): run \`sudo ${command}\`, then npm test again`);
  const installed = spawnSync('bash', ['-c', `apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${command} -qq`], { stdio: 'ignore' });
  if (installed.status !== 0 || !existsSync(binary))
    throw new Error(`${what} is missing (${binary}) and \`${command}\` failed: run it by hand`);
  return `${what}: installed Debian's ${debianPackage} (${binary})`;
}

export async function provision(): Promise<Provisioned> {
  const lines: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  const folders: string[] = [];

  const databaseUrl = process.env.TEST_DATABASE_URL || DEFAULT_DATABASE_URL;
  if (await postgresAnswers(databaseUrl)) {
    process.env.TEST_DATABASE_URL = databaseUrl;
    lines.push(`PostgreSQL: using ${redact(databaseUrl)}`);
  } else {
    if (!existsSync(path.join(PG_BIN, 'initdb'))) {
      throw new Error(
        `No PostgreSQL answers at ${redact(databaseUrl)} and none can be started (${PG_BIN}/initdb is missing): ` +
          'run `apt-get install -y postgresql` or set TEST_DATABASE_URL',
      );
    }
    const folder = mkdtempSync(path.join(tmpdir(), 'vr-test-postgres-'));
    folders.push(folder);
    const server: PrivatePostgres = await startPrivatePostgres(folder);
    stops.push(() => server.stop());
    process.env.TEST_DATABASE_URL = server.url;
    lines.push(`PostgreSQL: nothing answered at ${redact(databaseUrl)}; started PostgreSQL 15 at ${server.url} (${folder})`);
  }

  const redisUrl = process.env.TEST_REDIS_URL || DEFAULT_REDIS_URL;
  if (await redisAnswers(redisUrl)) {
    lines.push(`Redis: using ${redisUrl}`);
  } else {
    debianBinary('redis-server', REDIS_SERVER, 'redis-server');
    const port = await freePort();
    const folder = mkdtempSync(path.join(tmpdir(), 'vr-test-redis-'));
    folders.push(folder);
    const child: ChildProcess = spawn(
      REDIS_SERVER,
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', folder],
      { stdio: 'ignore' },
    );
    stops.push(async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
    });
    const url = `redis://127.0.0.1:${port}`;
    await waitFor('redis-server', 10_000, () => redisAnswers(url));
    process.env.TEST_REDIS_URL = url;
    lines.push(`Redis: nothing answered at ${redisUrl}; started redis-server at ${url}`);
  }

  lines.push(debianBinary('Chromium', process.env.CHROMIUM_PATH || '/usr/bin/chromium', 'chromium'));
  lines.push(debianBinary('PgBouncer', '/usr/sbin/pgbouncer', 'pgbouncer'));
  // The failover test (test/failover): etcd, Patroni and HAProxy in front of three PostgreSQL nodes.
  lines.push(debianBinary('Patroni', '/usr/bin/patroni', 'patroni'));
  lines.push(debianBinary('etcd', '/usr/bin/etcd', 'etcd-server'));
  lines.push(debianBinary('HAProxy', '/usr/sbin/haproxy', 'haproxy'));
  // The alert rules' tests (test/observability): promtool and a Prometheus server, one package.
  lines.push(debianBinary('Prometheus', '/usr/bin/prometheus', 'prometheus'));

  return {
    lines,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    },
  };
}
