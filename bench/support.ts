/** What the benchmarks share: the admin connection that creates scratch databases, and process CPU from /proc. */
import { readFileSync } from 'node:fs';
import pg from 'pg';

export const ADMIN_URL = process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/test';

export const log = (line: string) => process.stderr.write(`${line}\n`);

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * User + system CPU time of a process in ms (Linux): utime and stime, fields 14 and 15 of
 * `/proc/<pid>/stat` (12 and 13 after the command name), in clock ticks of 10 ms. On shared cores
 * the steadiest figure per request, where req/s moves with the machine's load.
 */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
