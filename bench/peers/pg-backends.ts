/**
 * CPU time of the PostgreSQL backends that serve one server process. A backend is found by its
 * client port: the server's own TCP sockets to PostgreSQL (/proc/<pid>/fd → socket inodes →
 * /proc/net/tcp) give the local ports, which pg_stat_activity.client_port names. Unlike an
 * application_name, this cannot count another process's connections, and it needs no change to
 * how a server names itself. PostgreSQL runs locally, so its backends' /proc/<pid>/stat is readable.
 *
 * A backend's parallel workers (pg_stat_activity.leader_pid) count too: at 1M reports a page's
 * count(*) runs on two workers beside its backend, and they are processes of their own that live
 * for one statement. A worker that exits between two samples loses the CPU it spent after the last
 * one (under one interval, hence a short one); a worker that lives less than one interval is missed.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import pg from 'pg';
import { cpuMs } from '../support';
import type { CpuWindow } from '../measure';

/** Local ports of the process's TCP connections to `remotePort` (IPv4 and IPv6). */
function clientPorts(pid: number, remotePort: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:[')) inodes.add(target.slice(8, -1));
    } catch {
      // the descriptor closed between readdir and readlink
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !inodes.has(fields[9]!)) continue;
      const local = Number.parseInt(fields[1]!.split(':')[1]!, 16);
      const remote = Number.parseInt(fields[2]!.split(':')[1]!, 16);
      if (remote === remotePort) ports.push(local);
    }
  }
  return ports;
}

function readCpu(pid: number): number | undefined {
  try {
    return cpuMs(pid);
  } catch {
    return undefined; // the backend exited
  }
}

/**
 * Samples the server's backends every `intervalMs` during a window: a pool opens and closes
 * connections while it is loaded, so a list taken once at the start would miss new backends and
 * lose the CPU of the ones that exit. A backend first seen after the start counts from 0 (all its
 * CPU falls inside the window); one that exits keeps its last sample (under one interval lost).
 */
export function backendCpuWindow(databaseUrl: string, serverPid: number, intervalMs = 50): CpuWindow & { close(): Promise<void> } {
  const port = Number(new URL(databaseUrl).port || 5432);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'vr-bench-observer' });
  const connected = client.connect();
  let first = new Map<number, number>();
  let last = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;
  let sampling: Promise<void> = Promise.resolve();

  const backends = async (): Promise<number[]> => {
    const ports = clientPorts(serverPid, port);
    if (ports.length === 0) return [];
    const rows = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE client_port = ANY($1::int[]) OR leader_pid IN (SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]))`,
      [ports],
    );
    return rows.rows.map((r) => r.pid);
  };
  const sample = async (initial: boolean): Promise<void> => {
    for (const pid of await backends()) {
      const cpu = readCpu(pid);
      if (cpu === undefined) continue;
      if (!first.has(pid)) first.set(pid, initial ? cpu : 0);
      last.set(pid, cpu);
    }
  };
  return {
    async start() {
      await connected;
      first = new Map();
      last = new Map();
      await sample(true);
      // On loaded cores a sample can outlast the interval: skip a tick rather than queue them.
      let busy = false;
      timer = setInterval(() => {
        if (busy) return;
        busy = true;
        sampling = sample(false)
          .catch(() => undefined)
          .finally(() => (busy = false));
      }, intervalMs);
    },
    async stop() {
      clearInterval(timer);
      await sampling;
      await sample(false);
      let total = 0;
      for (const [pid, cpu] of last) total += cpu - first.get(pid)!;
      return total;
    },
    close: () => client.end(),
  };
}
