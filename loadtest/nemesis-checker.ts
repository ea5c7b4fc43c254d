/**
 * The checker of a nemesis run (Jepsen's idea: record every operation's invocation and completion,
 * then judge the whole history against what the final state holds). Pure: the history and the
 * final table in, the problems and the figures out; used by test/failover/nemeses.test.ts and by
 * `npm run loadtest -- --topology patroni --nemesis NAME`.
 *
 * What must hold:
 * 1. every lead answered 201 is in the final table, with the token the client was given;
 * 2. each Idempotency-Key has exactly one report, however often it was retried;
 * 3. every answer is a 2xx, a 4xx, or a 503 with Retry-After (no other 5xx). A request that got
 *    no answer at all (the connection closed under it, the client's timeout) is what Jepsen calls
 *    indeterminate: counted apart (`noAnswer`), for the caller to bound; its key is retried like
 *    after a 503 and must still end with exactly one report;
 * 4. no two nodes accepted writes in the same interval: in the write probe's history
 *    (loadtest/write-probe.ts, straight to each node), no node acknowledged a write both before
 *    and after another node's acknowledged write, the windows [sent, answered] being ordered
 *    strictly; and every write a node acknowledged is in the final table.
 */
import type { ProbeWrite } from './write-probe';

export interface HistoryOperation {
  kind: 'write' | 'read';
  /** the Idempotency-Key of a lead creation */
  key?: string;
  /** ms on the run's clock */
  sentAt: number;
  answeredAt: number;
  /** 0: no HTTP answer (connection failed, client timeout) */
  status: number;
  retryAfter?: string | null;
  /** the token of a 201 */
  token?: string;
  /** why there was no answer */
  failed?: string;
}

export interface FinalReport {
  key: string;
  tokens: string[];
}

export interface CheckInput {
  operations: HistoryOperation[];
  /** the reports of this run's keys, read on the primary once the cluster is healthy again */
  finalReports: FinalReport[];
  probes?: ProbeWrite[];
  /** the probe's sequence numbers present in the final table */
  probeRowsFound?: Set<number>;
  /** when the fault began (ms on the run's clock), for the figures */
  faultAt?: number;
}

export interface CheckFigures {
  /** distinct keys answered 201 */
  acknowledged: number;
  /** of those, found in the final table with their token */
  found: number;
  /** keys with more than one report */
  duplicates: number;
  /** answers 503 (all with Retry-After, or they are problems too) */
  answers503: number;
  answersByStatus: Record<string, number>;
  /** requests that got no HTTP answer (indeterminate) */
  noAnswer: number;
  /** the longest time without a 201, from the fault on (s): how long writes were away */
  longestWriteGapSeconds?: number;
  /** fault -> the 201 that ended the longest gap (s): when writes were back; 0 when no gap reached a second */
  writesBackAfterSeconds?: number;
  /** the probe: acknowledged writes per node */
  probeAcknowledgedByNode: Record<string, number>;
  probeAcknowledgedLost: number;
}

export interface CheckResult {
  problems: string[];
  figures: CheckFigures;
}

const allowed = (op: HistoryOperation) =>
  (op.status >= 200 && op.status < 300) || (op.status >= 400 && op.status < 500) || (op.status === 503 && !!op.retryAfter);

/** Probe writes that prove a split brain: node A acknowledged before and after node B's acknowledged write. */
export function interleavedWriters(probes: ProbeWrite[]): string[] {
  const acked = probes.filter((p) => p.ok && p.answeredAt !== undefined);
  const byNode = new Map<string, { firstAnswered: number; lastSent: number }>();
  for (const p of acked) {
    const span = byNode.get(p.node) ?? { firstAnswered: Number.POSITIVE_INFINITY, lastSent: Number.NEGATIVE_INFINITY };
    span.firstAnswered = Math.min(span.firstAnswered, p.answeredAt!);
    span.lastSent = Math.max(span.lastSent, p.sentAt);
    byNode.set(p.node, span);
  }
  const found: string[] = [];
  for (const b of acked) {
    for (const [node, span] of byNode) {
      if (node === b.node) continue;
      if (span.firstAnswered < b.sentAt && b.answeredAt! < span.lastSent) {
        found.push(
          `${node} acknowledged writes before and after ${b.node}'s write #${b.seq} (${b.sentAt.toFixed(0)}-${b.answeredAt!.toFixed(0)} ms)`,
        );
        break;
      }
    }
  }
  return found;
}

export function checkHistory(input: CheckInput): CheckResult {
  const problems: string[] = [];
  const { operations } = input;

  // 1 and 2: acknowledged leads against the final table.
  const acknowledged = new Map<string, string>();
  for (const op of operations) {
    if (op.kind !== 'write' || op.status !== 201 || !op.key || !op.token) continue;
    const earlier = acknowledged.get(op.key);
    if (earlier && earlier !== op.token) problems.push(`key ${op.key} answered 201 with two tokens (${earlier}, ${op.token})`);
    acknowledged.set(op.key, op.token);
  }
  const final = new Map(input.finalReports.map((r) => [r.key, r.tokens]));
  let found = 0;
  for (const [key, token] of acknowledged) {
    if (final.get(key)?.includes(token)) found += 1;
    else {
      const attempts = operations
        .filter((op) => op.key === key)
        .map((op) => `${op.status || op.failed} sent ${op.sentAt.toFixed(0)} answered ${op.answeredAt.toFixed(0)} ms`);
      problems.push(`lead ${key} answered 201 (${token}) is not in the final table (lost write); attempts: ${attempts.join(', ')}`);
    }
  }
  const duplicates = input.finalReports.filter((r) => r.tokens.length > 1);
  for (const r of duplicates) problems.push(`key ${r.key} has ${r.tokens.length} reports (idempotency broken)`);

  // 3: only 2xx, 4xx, 503 with Retry-After.
  const answersByStatus: Record<string, number> = {};
  const bad = new Map<string, number>();
  for (const op of operations) {
    const label =
      op.status === 0
        ? `no answer (${op.failed ?? 'unknown'})`
        : op.status === 503 && !op.retryAfter
          ? '503 without Retry-After'
          : String(op.status);
    answersByStatus[`${op.kind} ${label}`] = (answersByStatus[`${op.kind} ${label}`] ?? 0) + 1;
    if (op.status !== 0 && !allowed(op)) bad.set(`${op.kind} ${label}`, (bad.get(`${op.kind} ${label}`) ?? 0) + 1);
  }
  for (const [label, n] of bad) problems.push(`${n} × ${label}: only 2xx, 4xx and 503 with Retry-After are allowed`);

  // 4: one writer at a time, and no acknowledged direct write lost.
  const probes = input.probes ?? [];
  const probeAcknowledgedByNode: Record<string, number> = {};
  for (const p of probes) if (p.ok) probeAcknowledgedByNode[p.node] = (probeAcknowledgedByNode[p.node] ?? 0) + 1;
  problems.push(...interleavedWriters(probes));
  let probeAcknowledgedLost = 0;
  if (input.probeRowsFound) {
    for (const p of probes) {
      if (p.ok && !input.probeRowsFound.has(p.seq)) probeAcknowledgedLost += 1;
    }
    if (probeAcknowledgedLost > 0)
      problems.push(`${probeAcknowledgedLost} writes acknowledged by a node (write probe) are not in the final table`);
  }

  // Figures: how long writes were away.
  let longestWriteGapSeconds: number | undefined;
  let writesBackAfterSeconds: number | undefined;
  if (input.faultAt !== undefined) {
    const faultAt = input.faultAt;
    const created = operations.filter((op) => op.kind === 'write' && op.status === 201).sort((a, b) => a.answeredAt - b.answeredAt);
    const lastBefore = created.filter((op) => op.answeredAt <= faultAt).at(-1)?.answeredAt ?? faultAt;
    let previous = lastBefore;
    let gap = 0;
    let gapEnd: number | undefined;
    for (const op of created.filter((o) => o.answeredAt > faultAt)) {
      if (op.answeredAt - previous > gap) {
        gap = op.answeredAt - previous;
        gapEnd = op.answeredAt;
      }
      previous = op.answeredAt;
    }
    longestWriteGapSeconds = gap / 1000;
    // Writes that never stopped (no gap of a second) were never "back": 0.
    writesBackAfterSeconds = gap < 1_000 ? 0 : gapEnd === undefined ? undefined : Math.max(0, gapEnd - faultAt) / 1000;
  }

  return {
    problems,
    figures: {
      acknowledged: acknowledged.size,
      found,
      duplicates: duplicates.length,
      answers503: operations.filter((op) => op.status === 503).length,
      noAnswer: operations.filter((op) => op.status === 0).length,
      answersByStatus,
      longestWriteGapSeconds,
      writesBackAfterSeconds,
      probeAcknowledgedByNode,
      probeAcknowledgedLost,
    },
  };
}
