/**
 * Which node accepts writes, when: a probe writes a row straight to every Patroni node (not
 * through HAProxy or PgBouncer) every `intervalMs`, each with a sequence number, and records when
 * each write was sent and whether the node acknowledged it (COMMIT returned). The checker
 * (loadtest/nemesis-checker.ts) then asks two questions of the history: did two nodes accept
 * writes in the same interval (split brain), and is every acknowledged write in the final table.
 *
 * The client gives up on a write after `timeoutMs` by destroying its socket, never with
 * statement_timeout or a cancel request: PostgreSQL answers a COMMIT whose wait for the
 * synchronous standby is cancelled with success (and a warning) although no standby has it, which
 * would make the probe itself acknowledge a write that the next failover rewinds away.
 */
import type { Socket } from 'node:net';
import pg from 'pg';
import { sleep } from './net';

export const PROBE_TABLE = 'nemesis_probe';

export interface ProbeWrite {
  node: string;
  seq: number;
  /** ms on the caller's clock */
  sentAt: number;
  answeredAt?: number;
  /** the node acknowledged the write */
  ok: boolean;
  /** why not: a SQLSTATE and message, or "timeout" / "connect" */
  error?: string;
}

export interface ProbeTarget {
  name: string;
  /** PostgreSQL on that node itself */
  url: string;
}

/** The probe's table, created through the primary (it replicates to the standbys). */
export async function createProbeTable(primaryUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${PROBE_TABLE} (seq bigint PRIMARY KEY, node text NOT NULL, written_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
  } finally {
    await client.end();
  }
}

/** The sequence numbers present in the table (read through the primary once the cluster is healthy). */
export async function probeRows(primaryUrl: string): Promise<Set<number>> {
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ seq: string }>(`SELECT seq FROM ${PROBE_TABLE}`);
    return new Set(rows.map((r) => Number(r.seq)));
  } finally {
    await client.end();
  }
}

function destroy(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: Socket } }).connection?.stream?.destroy();
  client.end().catch(() => undefined);
}

export class WriteProbe {
  readonly writes: ProbeWrite[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private seq = 0;

  constructor(
    private readonly targets: ProbeTarget[],
    private readonly now: () => number,
    private readonly options: { intervalMs?: number; timeoutMs?: number; firstSeq?: number } = {},
  ) {
    this.seq = options.firstSeq ?? 0;
  }

  start(): void {
    this.running = true;
    this.loops = this.targets.map((target) => this.loop(target));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** The next free sequence number, for a probe started after this one on the same table. */
  get nextSeq(): number {
    return this.seq + 1;
  }

  private async loop(target: ProbeTarget): Promise<void> {
    const intervalMs = this.options.intervalMs ?? 250;
    const timeoutMs = this.options.timeoutMs ?? 1_000;
    let client: pg.Client | undefined;
    while (this.running) {
      const began = this.now();
      if (!client) {
        const fresh = new pg.Client({
          connectionString: target.url,
          connectionTimeoutMillis: timeoutMs,
          application_name: 'vr-write-probe',
        });
        fresh.on('error', () => undefined);
        try {
          await fresh.connect();
          client = fresh;
        } catch {
          destroy(fresh);
        }
      }
      if (client) {
        const seq = (this.seq += 1);
        const write: ProbeWrite = { node: target.name, seq, sentAt: this.now(), ok: false };
        this.writes.push(write);
        const current = client;
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        try {
          const result = await Promise.race([
            current.query(`INSERT INTO ${PROBE_TABLE} (seq, node) VALUES ($1, $2)`, [seq, target.name]),
            timedOut,
          ]);
          if (result === 'timeout') {
            write.error = 'timeout';
            destroy(current);
            client = undefined;
          } else {
            write.ok = true;
            write.answeredAt = this.now();
          }
        } catch (error) {
          const { code, message } = error as { code?: string; message?: string };
          write.error = `${code ?? ''} ${message ?? ''}`.trim();
          write.answeredAt = this.now();
          // A read-only standby keeps its connection; anything else is opened again.
          if (code !== '25006') {
            destroy(current);
            client = undefined;
          }
        } finally {
          clearTimeout(timer);
        }
      }
      await sleep(Math.max(0, intervalMs - (this.now() - began)));
    }
    if (client) destroy(client);
  }
}
