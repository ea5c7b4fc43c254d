/**
 * The load test's Patroni topology (`--topology patroni --kill-leader-after S`): the leader's
 * postmaster is killed with `kill -9` under traffic; this module measures what that cost the
 * writers (the write gap, lead creations by status during it) and how the cluster came back (the
 * new leader, the old one rejoining as a replica).
 */
import type { ConsistencyReport } from './consistency';
import type { PatroniTopology } from './patroni-topology';
import { sleep } from './net';
import type { Timeline } from './timeline';
import type { LeadAttempt } from './traffic';

export interface FailoverFigures {
  killed: { name: string; pid: number; at: number };
  /** seconds after the kill when Patroni's REST API named another leader */
  newLeader?: { name: string; after: number };
  /** last 201 answered before the kill -> first 201 of a lead sent after it, seconds */
  writeGapSeconds?: number;
  /** kill -> first 201 of a lead sent after it, seconds */
  killToFirstWriteSeconds?: number;
  /** first answers of the lead creations in flight at the kill or sent before the first 201 after it */
  leadsDuringGap: Record<string, number>;
  /** the old leader rejoined (a streaming replica) within the wait; seconds after the kill */
  oldLeaderRejoined?: { role: string; after: number };
  members: { name: string; role: string; state: string }[];
}

/** Kills the leader's postmaster and follows the election; resolves once a new leader is known (or after 60 s). */
export async function killLeader(topology: PatroniTopology, timeline: Timeline): Promise<Pick<FailoverFigures, 'killed' | 'newLeader'>> {
  const killed = await topology.killLeaderPostmaster();
  const at = timeline.now();
  timeline.mark(`kill -9 ${killed.name}'s postmaster (pid ${killed.pid}), the Patroni leader`);
  for (let waited = 0; waited < 60_000; waited += 250) {
    const leader = await topology.leader().catch(() => undefined);
    if (leader && leader !== killed.name) {
      const after = timeline.now() - at;
      timeline.mark(`Patroni: ${leader} is the leader (${after.toFixed(1)} s after the kill)`);
      return { killed: { ...killed, at }, newLeader: { name: leader, after } };
    }
    await sleep(250);
  }
  timeline.mark('Patroni: no new leader within 60 s');
  return { killed: { ...killed, at } };
}

export function writeGap(
  leads: LeadAttempt[],
  killedAt: number,
): Pick<FailoverFigures, 'writeGapSeconds' | 'killToFirstWriteSeconds' | 'leadsDuringGap'> {
  const created = leads.filter((l) => l.status === 201 && l.answeredAt !== undefined);
  const lastBefore = Math.max(...created.filter((l) => l.answeredAt! < killedAt).map((l) => l.answeredAt!));
  const firstAfter = Math.min(...created.filter((l) => l.sentAt! >= killedAt).map((l) => l.answeredAt!));
  const leadsDuringGap: Record<string, number> = {};
  const gapEnd = Number.isFinite(firstAfter) ? firstAfter : Number.POSITIVE_INFINITY;
  for (const lead of leads) {
    // Answered after the kill (or never), sent before writes were back.
    if (lead.sentAt === undefined || lead.sentAt > gapEnd || (lead.answeredAt !== undefined && lead.answeredAt < killedAt)) continue;
    const label = lead.outcome ?? 'no answer';
    leadsDuringGap[label] = (leadsDuringGap[label] ?? 0) + 1;
  }
  return {
    writeGapSeconds: Number.isFinite(firstAfter) && Number.isFinite(lastBefore) ? firstAfter - lastBefore : undefined,
    killToFirstWriteSeconds: Number.isFinite(firstAfter) ? firstAfter - killedAt : undefined,
    leadsDuringGap,
  };
}

/** Waits (at most `timeoutMs`) for every node to be back, the killed one a streaming replica. */
export async function waitForRejoin(
  topology: PatroniTopology,
  killed: FailoverFigures['killed'],
  timeline: Timeline,
  timeoutMs = 90_000,
): Promise<Pick<FailoverFigures, 'oldLeaderRejoined' | 'members'>> {
  try {
    await topology.waitUntilHealthy({ timeoutMs });
  } catch (error) {
    timeline.mark(`Patroni: not every node back within ${timeoutMs / 1000} s (${(error as Error).message.slice(0, 200)})`);
  }
  const members = (await topology.members()).map((m) => ({ name: m.name, role: m.role, state: m.state }));
  const old = members.find((m) => m.name === killed.name);
  if (!old || old.role === 'leader' || !['streaming', 'running'].includes(old.state)) return { members };
  const after = timeline.now() - killed.at;
  timeline.mark(`Patroni: ${killed.name} rejoined as ${old.role} (${after.toFixed(1)} s after the kill)`);
  return { oldLeaderRejoined: { role: old.role, after }, members };
}

export function formatFailover(figures: FailoverFigures, consistency: ConsistencyReport): string {
  const s = (x: number | undefined) => (x === undefined ? 'never' : `${x.toFixed(1)} s`);
  return [
    'Patroni failover (etcd + 3 PostgreSQL 15 nodes, synchronous mode, HAProxy /primary + /replica, PgBouncer)',
    `  kill -9 of ${figures.killed.name}'s postmaster at ${figures.killed.at.toFixed(1)} s; new leader ${figures.newLeader?.name ?? 'none'} after ${s(figures.newLeader?.after)}`,
    `  write gap (last 201 before the kill -> first 201 of a lead sent after it): ${s(figures.writeGapSeconds)}; kill -> first 201: ${s(figures.killToFirstWriteSeconds)}`,
    `  lead creations in flight at the kill or sent before writes were back, by first answer: ${JSON.stringify(figures.leadsDuringGap)}`,
    `  leads acknowledged (201, first answer or retry with the same Idempotency-Key) ${consistency.reports.acknowledged}, found ${consistency.reports.found}; ` +
      `with several reports ${consistency.reports.leadsWithSeveralReports}; acknowledged without a report ${consistency.reports.acknowledgedWithoutReport}`,
    `  old leader: ${figures.oldLeaderRejoined ? `rejoined as ${figures.oldLeaderRejoined.role} ${s(figures.oldLeaderRejoined.after)} after the kill` : 'NOT back as a replica'}; ` +
      `members now: ${figures.members.map((m) => `${m.name} ${m.role} (${m.state})`).join(', ')}`,
  ].join('\n');
}
