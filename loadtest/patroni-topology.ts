/**
 * The high-availability topology of docs/deploy.md on one machine: etcd, three PostgreSQL 15 nodes
 * managed by Patroni (synchronous mode), HAProxy routing a primary port to the leader (Patroni's
 * /primary) and a replicas port to the standbys (/replica), and PgBouncer (transaction mode) in
 * front of HAProxy's primary port. The configuration files are deploy/patroni/*, filled in with
 * loopback addresses and free ports; everything lives under one temporary folder.
 *
 * Used by test/failover/patroni.test.ts, `npm run loadtest -- --topology patroni` and
 * `npm run patroni` (loadtest/patroni-cli.ts). `stop()` kills whatever was started (Patroni, the
 * postmasters it left behind, PgBouncer, HAProxy, etcd) and removes the folder; a failed start
 * does the same before rethrowing, so nothing outlives the caller.
 *
 * Needs Debian's patroni, etcd-server, haproxy and pgbouncer (and PostgreSQL 15). PostgreSQL and
 * PgBouncer refuse to run as root: when we are root they (and Patroni) run as `postgres`.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  type Dirent,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../src/platform/project-root';
import { freePort, sleep } from './net';
import { createNodeNetwork, type NodeNetwork } from './node-network';
import { query } from './replication-cluster';

const run = promisify(execFile);
export const PATRONI_DEPLOY_DIR = path.join(PROJECT_ROOT, 'deploy', 'patroni');
const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';
export const PATRONI_DATABASE = 'vehicle_report';
/** What PgBouncer sets on every server connection it opens (the service cannot send it through PgBouncer). */
export const PATRONI_STATEMENT_TIMEOUT_MS = 30_000;
const NODE_NAMES = ['pg-1', 'pg-2', 'pg-3'] as const;

/** The binaries the topology needs, where Debian puts them. */
const BINARIES = {
  patroni: process.env.PATRONI_BIN || '/usr/bin/patroni',
  etcd: process.env.ETCD_BIN || '/usr/bin/etcd',
  haproxy: process.env.HAPROXY_BIN || '/usr/sbin/haproxy',
  pgbouncer: process.env.PGBOUNCER_BIN || '/usr/sbin/pgbouncer',
  postgres: path.join(PG_BIN, 'postgres'),
};

/** What is missing to run the topology, as one message naming the Debian packages; undefined when nothing is. */
export function missingPatroniPrerequisites(): string | undefined {
  const packages: Record<keyof typeof BINARIES, string> = {
    patroni: 'patroni',
    etcd: 'etcd-server',
    haproxy: 'haproxy',
    pgbouncer: 'pgbouncer',
    postgres: 'postgresql-15',
  };
  const missing = (Object.keys(BINARIES) as (keyof typeof BINARIES)[]).filter((name) => !existsSync(BINARIES[name]));
  if (missing.length === 0) return undefined;
  return (
    `the Patroni topology needs ${missing.map((m) => BINARIES[m]).join(', ')}: ` +
    `apt-get update && apt-get install -y ${missing.map((m) => packages[m]).join(' ')} (.ci/run installs them)`
  );
}

export interface PatroniMember {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  host: string;
  port: number;
  timeline?: number;
  lag?: number | string;
}

export interface PatroniNode {
  name: string;
  /** where the node listens: 127.0.0.1, or its own address in its network namespace */
  host: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  /** PostgreSQL itself on this node (assertions only). */
  url: string;
}

export interface PatroniTopology {
  dir: string;
  nodes: PatroniNode[];
  /** PgBouncer (transaction mode) -> HAProxy primary port, with `?pgbouncer=true`: the service's DATABASE_URL. */
  pgbouncerUrl: string;
  /** HAProxy's primary port: DATABASE_DIRECT_URL (migrations, LISTEN), and "read through the new primary". */
  primaryUrl: string;
  /** HAProxy's replicas port: DATABASE_REPLICA_URLS. */
  replicasUrl: string;
  etcdUrl: string;
  /** The cluster as Patroni's REST API describes it (GET /cluster on the first node that answers). */
  members(): Promise<PatroniMember[]>;
  /** The current leader's name, or undefined while there is none. */
  leader(): Promise<string | undefined>;
  /** Waits until a leader runs and `replicas` standbys stream from it (all of them by default). */
  waitUntilHealthy(options?: { timeoutMs?: number; replicas?: number }): Promise<{ leader: string }>;
  /** `kill -9` of the leader's postmaster (the PID in its postmaster.pid); returns the node's name. */
  killLeaderPostmaster(): Promise<{ name: string; pid: number }>;
  /**
   * SIGSTOP of the leader's Patroni, its postmaster and every child of the postmaster (backends,
   * WAL sender, checkpointer...): the whole node frozen, as a stalled VM or a long GC pause would.
   */
  pauseLeader(): Promise<PausedNode>;
  /** SIGCONT of what pauseLeader() stopped. */
  resume(paused: PausedNode): void;
  /** etcd stopped (SIGTERM, its data kept) / started again with the same data and ports. */
  stopEtcd(): Promise<void>;
  startEtcd(): Promise<void>;
  /** Whether the nodes run in network namespaces of their own (as root), which partition needs. */
  readonly isolatedNodes: boolean;
  /** The leader cut off from etcd and from the other nodes (still reachable by HAProxy and clients). */
  partitionLeader(): Promise<{ name: string }>;
  /** Undoes partitionLeader(). */
  healPartition(): Promise<void>;
  /** PgBouncer stopped (SIGTERM: immediate shutdown, its clients cut) and started again on the same port. */
  restartPgbouncer(): Promise<{ downMs: number }>;
  stop(): Promise<void>;
}

export interface PausedNode {
  name: string;
  pids: number[];
}

const isRoot = () => process.getuid?.() === 0;

/** `${NAME}` placeholders filled in; one left unfilled is a mistake in this file or the template. */
export function fillTemplate(template: string, values: Record<string, string | number>, file: string): string {
  return template.replace(/\$\{([A-Z_]+)\}/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`${file}: no value for \${${name}}`);
    return String(values[name]);
  });
}

function template(name: string, values: Record<string, string | number>): string {
  return fillTemplate(readFileSync(path.join(PATRONI_DEPLOY_DIR, name), 'utf8'), values, `deploy/patroni/${name}`);
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function terminate(pid: number | undefined, graceMs: number): Promise<void> {
  if (!pid || !alive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitForExit(pid, graceMs)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
  await waitForExit(pid, 2_000);
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The PIDs whose parent is `pid` (from /proc). */
function childPids(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function restGet<T>(host: string, port: number, route: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://${host}:${port}${route}`, { signal: AbortSignal.timeout(2_000) });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
}

export async function startPatroniTopology(
  options: {
    parentDir?: string;
    log?: (line: string) => void;
    healthyWithinMs?: number;
    /**
     * Each node in a network namespace of its own (root only; the partition nemesis needs it).
     * Default: as root, unless PATRONI_NODE_NAMESPACES=0.
     */
    isolateNodes?: boolean;
  } = {},
): Promise<PatroniTopology> {
  const missing = missingPatroniPrerequisites();
  if (missing) throw new Error(missing);
  const isolateNodes = options.isolateNodes ?? (isRoot() && process.env.PATRONI_NODE_NAMESPACES !== '0');
  if (isolateNodes && !isRoot()) throw new Error('network namespaces for the Patroni nodes need root');
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(path.join(options.parentDir ?? os.tmpdir(), 'vr-patroni-'));
  chmodSync(dir, 0o711);
  const ids = postgresIds();
  const children: { name: string; child: ChildProcess }[] = [];
  const nodes: PatroniNode[] = [];
  let network: NodeNetwork | undefined;
  let stopping: Promise<void> | undefined;

  const stop = () =>
    (stopping ??= (async () => {
      // Clients first, then the nodes (Patroni stops its PostgreSQL on SIGTERM), etcd last.
      for (const name of ['pgbouncer', 'haproxy']) {
        for (const c of children.filter((c) => c.name === name)) await terminate(c.child.pid, 3_000);
      }
      await Promise.all(children.filter((c) => c.name.startsWith('patroni')).map((c) => terminate(c.child.pid, 15_000)));
      // A postmaster whose Patroni died first (or a node killed mid-start) is killed outright.
      for (const node of nodes) {
        const pid = postmasterPid(node.dataDir);
        if (pid && alive(pid)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
          await waitForExit(pid, 5_000);
        }
      }
      for (const c of children.filter((c) => c.name === 'etcd')) await terminate(c.child.pid, 3_000);
      await network?.destroy();
      // PATRONI_KEEP_DIR=1 keeps the logs (Patroni, PostgreSQL, etcd, HAProxy, PgBouncer) to read.
      if (process.env.PATRONI_KEEP_DIR === '1') log(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    })());

  const spawnLogged = (name: string, file: string, args: string[], asPostgres: boolean, prefix: string[] = []) => {
    const logFd = openSync(path.join(dir, `${name}.log`), 'a');
    // In a node's namespace: `ip netns exec` needs root, so the switch to postgres comes after it
    // (setpriv); both exec in place, so the PID we hold is the program's own.
    const command =
      prefix.length > 0
        ? [
            ...prefix,
            ...(asPostgres && ids ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--'] : []),
            file,
            ...args,
          ]
        : [file, ...args];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: dir,
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, HOME: dir, PGPASSFILE: path.join(dir, `${name}.pgpass`) },
      ...(asPostgres && ids && prefix.length === 0 ? { uid: ids.uid, gid: ids.gid } : {}),
    });
    closeSync(logFd);
    child.on('error', () => undefined);
    children.push({ name, child });
    return child;
  };

  try {
    const [etcdClient, etcdPeer, primaryPort, replicasPort, bouncerPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    if (isolateNodes) network = await createNodeNetwork(NODE_NAMES.length);
    // The nodes reach etcd at the bridge's address when they have namespaces of their own.
    const etcdHost = network?.bridgeAddress ?? '127.0.0.1';
    const etcdUrl = `http://${etcdHost}:${etcdClient}`;
    const etcdArgs = [
      '--name=vr-etcd',
      `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=${[...new Set([etcdUrl, `http://127.0.0.1:${etcdClient}`])].join(',')}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=vr-etcd=http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster-state=new',
      // Patroni talks to it through the v2 API (deploy/patroni/patroni.yml says why).
      '--enable-v2=true',
    ];
    const startEtcd = async () => {
      spawnLogged('etcd', BINARIES.etcd, etcdArgs, false);
      await until('etcd to answer', 20_000, async () => (await fetch(`${etcdUrl}/health`)).ok);
    };
    await startEtcd();
    log(`  etcd ${etcdUrl}`);

    const password = `vr-${process.pid}-${Date.now().toString(36)}`;
    for (const [index, name] of NODE_NAMES.entries()) {
      const [pgPort, restPort] = [await freePort(), await freePort()];
      const nodeDir = path.join(dir, name);
      const host = network?.addresses[index] ?? '127.0.0.1';
      const node: PatroniNode = {
        name,
        host,
        pgPort,
        restPort,
        dataDir: path.join(nodeDir, 'data'),
        url: `postgresql://postgres@${host}:${pgPort}/${PATRONI_DATABASE}`,
      };
      mkdirSync(nodeDir, { mode: 0o700 });
      const config = path.join(nodeDir, 'patroni.yml');
      writeFileSync(
        config,
        template('patroni.yml', {
          NAME: name,
          REST_ADDRESS: `${host}:${restPort}`,
          ETCD_HOSTS: `${etcdHost}:${etcdClient}`,
          PG_ADDRESS: `${host}:${pgPort}`,
          DATA_DIR: node.dataDir,
          PG_BIN,
          PGPASS: path.join(nodeDir, 'pgpass'),
          SUPERUSER_PASSWORD: password,
          REPLICATION_PASSWORD: password,
          CLIENT_NETWORK: network?.cidr ?? '127.0.0.1/32',
          // One machine, loopback only: no passwords between the nodes and for the service.
          AUTH_METHOD: 'trust',
          SOCKET_DIR: nodeDir,
        }),
      );
      if (ids) await run('chown', ['-R', 'postgres:postgres', nodeDir]);
      nodes.push(node);
    }
    // The first node bootstraps (initdb) while the others wait for it to hold the leader key.
    for (const [index, node] of nodes.entries()) {
      spawnLogged(
        `patroni-${node.name}`,
        BINARIES.patroni,
        [path.join(dir, node.name, 'patroni.yml')],
        true,
        network?.execPrefix(index) ?? [],
      );
    }

    const members = async (): Promise<PatroniMember[]> => {
      for (const [index, node] of nodes.entries()) {
        // A node cut off from etcd only knows its own stale view.
        if (network?.isolated() === index) continue;
        try {
          const { status, body } = await restGet<{ members?: PatroniMember[] }>(node.host, node.restPort, '/cluster');
          if (status === 200 && body?.members) return body.members;
        } catch {
          // try the next node
        }
      }
      return [];
    };
    const leader = async () => (await members()).find((m) => m.role === 'leader' && m.state === 'running')?.name;
    const waitUntilHealthy = async ({ timeoutMs = 120_000, replicas = nodes.length - 1 } = {}) => {
      let found: string | undefined;
      let last: PatroniMember[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        last = await members();
        const head = last.find((m) => m.role === 'leader' && m.state === 'running');
        const streaming = last.filter((m) => m.role !== 'leader' && (m.state === 'streaming' || m.state === 'running'));
        if (head && streaming.length >= replicas) {
          // A standby counts once PostgreSQL on the leader sees it streaming.
          const head_ = nodes.find((n) => n.name === head.name)!;
          const rows = await query<{ n: number }>(
            `postgresql://postgres@${head_.host}:${head_.pgPort}/postgres`,
            "SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'",
          ).catch(() => [{ n: 0 }]);
          if (rows[0]!.n >= replicas) {
            found = head.name;
            break;
          }
        }
        if (Date.now() > deadline) {
          throw new Error(`Patroni cluster not healthy within ${timeoutMs / 1000} s: ${JSON.stringify(last)} (logs in ${dir})`);
        }
        await sleep(250);
      }
      return { leader: found };
    };
    await waitUntilHealthy({ timeoutMs: options.healthyWithinMs ?? 180_000 });
    log(`  Patroni: ${(await members()).map((m) => `${m.name} ${m.role} (${m.state}, :${m.port})`).join(', ')}`);

    // HAProxy: the primary and replicas ports, by Patroni's health endpoints.
    const servers = (check: string) =>
      nodes.map((n) => `    server ${n.name} ${n.host}:${n.pgPort} check port ${n.restPort}${check}`).join('\n');
    const haproxyConfig = path.join(dir, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      template('haproxy.cfg', {
        PRIMARY_BIND: `127.0.0.1:${primaryPort}`,
        REPLICAS_BIND: `127.0.0.1:${replicasPort}`,
        PRIMARY_SERVERS: servers(''),
        REPLICA_SERVERS: servers(''),
      }),
    );
    spawnLogged('haproxy', BINARIES.haproxy, ['-db', '-f', haproxyConfig], false);
    const primaryUrl = `postgresql://postgres@127.0.0.1:${primaryPort}/${PATRONI_DATABASE}`;
    const replicasUrl = `postgresql://postgres@127.0.0.1:${replicasPort}/${PATRONI_DATABASE}`;
    // HAProxy counts every server up until its first checks fail (2.6 has no init-state): until
    // then the primary port may lead to a standby. Ready once several connections in a row (round
    // robin over all three) land on the leader, and on standbys through the replicas port.
    const postgresDb = primaryUrl.replace(`/${PATRONI_DATABASE}`, '/postgres');
    const routedTo = async (url: string, recovery: boolean) => {
      for (let i = 0; i < 2 * nodes.length; i += 1) {
        const [row] = await query<{ recovery: boolean }>(url, 'SELECT pg_is_in_recovery() AS recovery');
        if (row?.recovery !== recovery) return false;
      }
      return true;
    };
    await until('HAProxy to route its primary port to the leader only', 30_000, () => routedTo(postgresDb, false));
    await query(postgresDb, `CREATE DATABASE ${PATRONI_DATABASE}`);
    await until('HAProxy to route its replicas port to standbys only', 30_000, () => routedTo(replicasUrl, true));

    // PgBouncer in front of HAProxy's primary port.
    const bouncerDir = path.join(dir, 'pgbouncer');
    mkdirSync(bouncerDir);
    writeFileSync(path.join(bouncerDir, 'userlist.txt'), '"postgres" ""\n');
    const bouncerIni = path.join(bouncerDir, 'pgbouncer.ini');
    writeFileSync(
      bouncerIni,
      template('pgbouncer.ini', {
        DATABASE: PATRONI_DATABASE,
        PRIMARY_HOST: '127.0.0.1',
        PRIMARY_PORT: primaryPort,
        STATEMENT_TIMEOUT_MS: PATRONI_STATEMENT_TIMEOUT_MS,
        LISTEN_ADDR: '127.0.0.1',
        LISTEN_PORT: bouncerPort,
        SOCKET_DIR: bouncerDir,
        AUTH_TYPE: 'trust',
        AUTH_FILE: path.join(bouncerDir, 'userlist.txt'),
        LOG_FILE: path.join(bouncerDir, 'pgbouncer.log'),
        PID_FILE: path.join(bouncerDir, 'pgbouncer.pid'),
      }),
    );
    if (ids) await run('chown', ['-R', 'postgres:postgres', bouncerDir]);
    // In the foreground (no -d): the PID we hold is PgBouncer's own.
    const bouncerPlain = `postgresql://postgres@127.0.0.1:${bouncerPort}/${PATRONI_DATABASE}`;
    const startPgbouncer = async () => {
      spawnLogged('pgbouncer', BINARIES.pgbouncer, [bouncerIni], true);
      await until('PgBouncer to reach the primary', 20_000, async () => (await query(bouncerPlain, 'SELECT 1')).length === 1);
    };
    await startPgbouncer();
    const leaderNode = async () => {
      const name = await leader();
      const node = nodes.find((n) => n.name === name);
      if (!node) throw new Error('no leader');
      return { node, index: nodes.indexOf(node) };
    };
    const running = (name: string) => children.filter((c) => c.name === name && c.child.exitCode === null && c.child.signalCode === null);
    log(`  HAProxy primary :${primaryPort}, replicas :${replicasPort}; PgBouncer :${bouncerPort}`);

    return {
      dir,
      nodes,
      pgbouncerUrl: `${bouncerPlain}?pgbouncer=true`,
      primaryUrl,
      replicasUrl,
      etcdUrl,
      members,
      leader,
      waitUntilHealthy,
      async killLeaderPostmaster() {
        const name = await leader();
        const node = nodes.find((n) => n.name === name);
        if (!node) throw new Error('no leader to kill');
        const pid = postmasterPid(node.dataDir);
        if (!pid) throw new Error(`no postmaster.pid in ${node.dataDir}`);
        process.kill(pid, 'SIGKILL');
        return { name: node.name, pid };
      },
      async pauseLeader() {
        const { node } = await leaderNode();
        const patroni = running(`patroni-${node.name}`)[0]?.child.pid;
        const postmaster = postmasterPid(node.dataDir);
        if (!patroni || !postmaster) throw new Error(`${node.name}: no Patroni or postmaster to pause`);
        // Patroni first (it would restart what it sees stopped), then the postmaster (no new
        // backends), then every child of it.
        const pids = [patroni, postmaster];
        for (const pid of pids) process.kill(pid, 'SIGSTOP');
        const backends = childPids(postmaster);
        for (const pid of backends) {
          try {
            process.kill(pid, 'SIGSTOP');
            pids.push(pid);
          } catch {
            // ended meanwhile
          }
        }
        return { name: node.name, pids };
      },
      resume(paused) {
        for (const pid of [...paused.pids].reverse()) {
          try {
            process.kill(pid, 'SIGCONT');
          } catch {
            // gone
          }
        }
      },
      async stopEtcd() {
        for (const c of running('etcd')) await terminate(c.child.pid, 5_000);
      },
      startEtcd,
      isolatedNodes: network !== undefined,
      async partitionLeader() {
        if (!network) throw new Error('partition needs the nodes in network namespaces (root, isolateNodes)');
        const { node, index } = await leaderNode();
        await network.partition(index, etcdClient);
        return { name: node.name };
      },
      async healPartition() {
        await network?.heal();
      },
      async restartPgbouncer() {
        const began = performance.now();
        for (const c of running('pgbouncer')) await terminate(c.child.pid, 5_000);
        await startPgbouncer();
        return { downMs: performance.now() - began };
      },
      stop,
    };
  } catch (error) {
    // The folder goes with stop(): what each process said is kept in the error, or a failed
    // start on CI leaves nothing to read.
    const logs = logTails(dir);
    await stop();
    if (error instanceof Error) error.message += logs;
    throw error;
  }
}

/** The last lines of every log under `dir` (Patroni, PostgreSQL, etcd, HAProxy, PgBouncer), for a failed start's error. */
function logTails(dir: string, lines = 25): string {
  const files: string[] = [];
  const walk = (folder: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && depth < 4 && entry.name !== 'etcd' && entry.name !== 'base') walk(full, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.log')) files.push(full);
    }
  };
  walk(dir, 0);
  return files
    .map((file) => {
      const text = readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      return `\n--- ${path.relative(dir, file)} (last ${lines} lines)\n${text}`;
    })
    .join('');
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    }
    await sleep(250);
  }
}
