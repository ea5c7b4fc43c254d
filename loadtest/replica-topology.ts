/**
 * The load test's replica topology: where the statements ran (pg_stat_statements on the primary
 * and on the standby), where the instances say their reads went (their /metrics), and what the
 * standby's outage cost the clients (answers per second during the outage against before it).
 */
import { query, type ReplicationCluster } from './replication-cluster';

/** Tables whose SELECTs are list and fetch reads (lead creation also checks its dealership on the primary). */
const READ_TABLES = ['reports', 'users', 'dealerships', 'contacts', 'organizations'] as const;

export interface StatementPlacement {
  /** report list requests (REST list, GraphQL `reports`): calls of the list's total statement, one per request */
  reportLists: { primary: number; standby: number; standbyShare: number };
  /** SELECT calls per table on each server */
  selects: Record<string, { primary: number; standby: number; standbyShare: number }>;
  /** INSERT/UPDATE/DELETE calls on each server */
  writes: { primary: number; standby: number };
}

export interface InstanceReads {
  replica: number;
  primary: number;
  primary_fallback_unavailable: number;
  primary_fallback_not_found: number;
}

export interface OutageCost {
  seconds: number;
  before: { ok: number; failed: number; clientErrors: number; okPerSecond: number };
  during: { ok: number; failed: number; clientErrors: number; okPerSecond: number };
}

export interface ReplicaFigures {
  statements: StatementPlacement;
  /** vr_db_reads_total summed over the instances (a killed instance's counts start again at its restart) */
  instanceReads: InstanceReads;
  outage?: OutageCost;
}

export async function resetStatementStats(cluster: ReplicationCluster): Promise<void> {
  await query(cluster.primaryUrl, 'SELECT pg_stat_statements_reset()');
  await query(cluster.standbyUrl, 'SELECT pg_stat_statements_reset()');
}

async function selectsByTable(url: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of READ_TABLES) {
    const [row] = await query<{ calls: number }>(
      url,
      `SELECT COALESCE(sum(calls), 0)::int AS calls FROM pg_stat_statements
       WHERE query ~* '^\\s*(select|with)' AND query ~* ('(from|join)\\s+("public"\\.)?"?' || $1 || '"?\\M')`,
      [table],
    );
    counts[table] = row!.calls;
  }
  return counts;
}

async function writes(url: string): Promise<number> {
  const [row] = await query<{ calls: number }>(
    url,
    "SELECT COALESCE(sum(calls), 0)::int AS calls FROM pg_stat_statements WHERE query ~* '^\\s*(insert|update|delete)'",
  );
  return row!.calls;
}

/** The report list's total (src/features/reports/report-query.ts, reportCountSql): one per list request. */
// Lists filtered only by counted columns (the default page among them) sum the counter table; others count.
const REPORT_LIST_TOTAL =
  '^\\s*select (count\\(\\*\\)::int as total from reports r where|coalesce\\(sum\\(k\\.total\\), 0\\)::int as total from report_key_counts)';

async function callsMatching(url: string, pattern: string): Promise<number> {
  const [row] = await query<{ calls: number }>(
    url,
    'SELECT COALESCE(sum(calls), 0)::int AS calls FROM pg_stat_statements WHERE query ~* $1',
    [pattern],
  );
  return row!.calls;
}

export async function statementPlacement(cluster: ReplicationCluster): Promise<StatementPlacement> {
  const lists = {
    primary: await callsMatching(cluster.primaryUrl, REPORT_LIST_TOTAL),
    standby: await callsMatching(cluster.standbyUrl, REPORT_LIST_TOTAL),
  };
  const listTotal = lists.primary + lists.standby;
  const [primary, standby] = [await selectsByTable(cluster.primaryUrl), await selectsByTable(cluster.standbyUrl)];
  const selects: StatementPlacement['selects'] = {};
  for (const table of READ_TABLES) {
    const total = primary[table]! + standby[table]!;
    selects[table] = { primary: primary[table]!, standby: standby[table]!, standbyShare: total === 0 ? 0 : standby[table]! / total };
  }
  return {
    reportLists: { ...lists, standbyShare: listTotal === 0 ? 0 : lists.standby / listTotal },
    selects,
    writes: { primary: await writes(cluster.primaryUrl), standby: await writes(cluster.standbyUrl) },
  };
}

/** Sums `vr_db_reads_total` over the instances' /metrics. */
export async function instanceReads(ports: number[], token: string): Promise<InstanceReads> {
  const sums: InstanceReads = { replica: 0, primary: 0, primary_fallback_unavailable: 0, primary_fallback_not_found: 0 };
  for (const port of ports) {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.text())
      .catch(() => '');
    for (const match of text.matchAll(/^vr_db_reads_total\{target="([a-z_]+)"\} (\d+)/gm)) {
      const target = match[1] as keyof InstanceReads;
      if (target in sums) sums[target] += Number(match[2]);
    }
  }
  return sums;
}

/** Answers during [from, to) seconds against the same length of time just before it. */
export function outageCost(perSecond: { ok: number; failed: number; clientErrors: number }[], from: number, to: number): OutageCost {
  const seconds = Math.max(1, Math.round(to - from));
  const sum = (start: number, end: number) => {
    const slice = perSecond.slice(Math.max(0, Math.floor(start)), Math.max(0, Math.floor(end)));
    const total = slice.reduce(
      (a, s) => ({ ok: a.ok + s.ok, failed: a.failed + s.failed, clientErrors: a.clientErrors + s.clientErrors }),
      { ok: 0, failed: 0, clientErrors: 0 },
    );
    return { ...total, okPerSecond: Math.round(total.ok / Math.max(1, slice.length)) };
  };
  return { seconds, before: sum(from - seconds, from), during: sum(from, from + seconds) };
}

export function formatReplicaFigures(figures: ReplicaFigures): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const lines = [
    'Replica topology (primary + pg_basebackup standby + PgBouncer transaction mode in front of the primary)',
    `  report list requests (their total statement): primary ${figures.statements.reportLists.primary}, standby ${figures.statements.reportLists.standby}: ${pct(figures.statements.reportLists.standbyShare)} served by the standby`,
    '  SELECT calls by table (pg_stat_statements):   primary   standby   standby share',
    ...Object.entries(figures.statements.selects).map(
      ([table, c]) => `    ${table.padEnd(42)} ${String(c.primary).padStart(7)} ${String(c.standby).padStart(9)}   ${pct(c.standbyShare)}`,
    ),
    `  writes (INSERT/UPDATE/DELETE): primary ${figures.statements.writes.primary}, standby ${figures.statements.writes.standby}`,
    `  instances' vr_db_reads_total: ${Object.entries(figures.instanceReads)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  ];
  if (figures.outage) {
    const { before, during, seconds } = figures.outage;
    lines.push(
      `  standby outage (${seconds} s): ok ${during.ok} (${during.okPerSecond}/s), failed ${during.failed}, client errors ${during.clientErrors}` +
        `; the ${seconds} s before: ok ${before.ok} (${before.okPerSecond}/s), failed ${before.failed}, client errors ${before.clientErrors}`,
    );
  }
  return lines.join('\n');
}
