/**
 * The nemeses of the Patroni topology (Jepsen's word for the fault injector), each run under
 * traffic by test/failover/nemeses.test.ts and by `npm run loadtest -- --topology patroni
 * --nemesis NAME`:
 *
 * - pause: SIGSTOP of the leader's Patroni, postmaster and backends for longer than the leader
 *   key's TTL, then SIGCONT. Another node is promoted meanwhile; the paused one must never
 *   acknowledge a write afterwards, and rejoins as a replica.
 * - dcs-loss: etcd stopped for `faultMs`, then started again (data kept). With `failsafe_mode`
 *   (deploy/patroni/patroni.yml) the leader stays primary while it reaches every member.
 * - partition: the leader cut off from etcd and from the other nodes for `faultMs` (network
 *   namespaces + nftables, loadtest/node-network.ts), then healed. HAProxy and the clients still
 *   reach it.
 * - pgbouncer-restart: PgBouncer stopped (immediate shutdown) and started again.
 * - api-kill: one API instance behind HAProxy killed, started again `restartDelayMs` later
 *   (supplied by the caller: a child process's SIGKILL in the load test).
 *
 * Each resolves once the fault is healed; the caller then waits for the cluster to be healthy.
 */
import { sleep } from './net';
import type { PatroniTopology } from './patroni-topology';

export const NEMESES = ['pause', 'dcs-loss', 'partition', 'pgbouncer-restart', 'api-kill'] as const;
export type NemesisName = (typeof NEMESES)[number];

export const isNemesis = (name: string): name is NemesisName => (NEMESES as readonly string[]).includes(name);

/** The leader key's TTL in deploy/patroni/patroni.yml: a pause must outlast it to cause an election. */
export const LEADER_TTL_MS = 20_000;

export interface NemesisOptions {
  topology: PatroniTopology;
  /** how long etcd stays down, the partition holds, the pause lasts (at least the TTL + 5 s) */
  faultMs: number;
  /** api-kill: kills one API instance; resolves when it has been started again */
  killApiInstance?: () => Promise<string>;
  mark: (event: string) => void;
}

export interface NemesisRun {
  name: NemesisName;
  /** the node or instance the fault hit */
  target: string;
  leaderBefore?: string;
  /** the first leader other than the one before, named during the fault, and when (ms after it began) */
  newLeader?: { name: string; afterMs: number };
}

/** Polls the leader while `until` is pending; the first leader other than `before`, and when. */
async function watchLeader(
  topology: PatroniTopology,
  before: string | undefined,
  began: number,
  until: Promise<unknown>,
): Promise<NemesisRun['newLeader']> {
  let done = false;
  void until.finally(() => (done = true));
  while (!done) {
    const leader = await topology.leader().catch(() => undefined);
    if (leader && leader !== before) return { name: leader, afterMs: performance.now() - began };
    await Promise.race([sleep(250), until]);
  }
  return undefined;
}

export async function runNemesis(name: NemesisName, options: NemesisOptions): Promise<NemesisRun> {
  const { topology, faultMs, mark } = options;
  const leaderBefore = await topology.leader();
  const began = performance.now();
  switch (name) {
    case 'pause': {
      const pauseMs = Math.max(faultMs, LEADER_TTL_MS + 5_000);
      const paused = await topology.pauseLeader();
      mark(`SIGSTOP ${paused.name} (Patroni, postmaster and ${paused.pids.length - 2} children) for ${pauseMs / 1000} s`);
      const over = sleep(pauseMs);
      const newLeader = await watchLeader(topology, leaderBefore, began, over);
      if (newLeader) mark(`Patroni: ${newLeader.name} is the leader (${(newLeader.afterMs / 1000).toFixed(1)} s after the pause began)`);
      await over;
      topology.resume(paused);
      mark(`SIGCONT ${paused.name}`);
      return { name, target: paused.name, leaderBefore, newLeader };
    }
    case 'dcs-loss': {
      await topology.stopEtcd();
      mark(`etcd stopped for ${faultMs / 1000} s`);
      const over = sleep(faultMs);
      const newLeader = await watchLeader(topology, leaderBefore, began, over);
      await over;
      await topology.startEtcd();
      mark('etcd started again');
      return { name, target: 'etcd', leaderBefore, newLeader };
    }
    case 'partition': {
      const cut = await topology.partitionLeader();
      mark(`${cut.name} cut off from etcd and the other nodes for ${faultMs / 1000} s`);
      const over = sleep(faultMs);
      const newLeader = await watchLeader(topology, leaderBefore, began, over);
      if (newLeader) mark(`Patroni: ${newLeader.name} is the leader (${(newLeader.afterMs / 1000).toFixed(1)} s after the partition)`);
      await over;
      await topology.healPartition();
      mark(`partition of ${cut.name} healed`);
      return { name, target: cut.name, leaderBefore, newLeader };
    }
    case 'pgbouncer-restart': {
      mark('PgBouncer stopped (SIGTERM: immediate shutdown)');
      const { downMs } = await topology.restartPgbouncer();
      mark(`PgBouncer answers again (${(downMs / 1000).toFixed(1)} s)`);
      return { name, target: 'pgbouncer', leaderBefore };
    }
    case 'api-kill': {
      if (!options.killApiInstance) throw new Error('api-kill needs API instances behind a balancer');
      const killed = await options.killApiInstance();
      return { name, target: killed, leaderBefore };
    }
  }
}
