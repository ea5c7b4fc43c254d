/**
 * The names of the PostgreSQL test databases (test/support/databases.ts) and the sweep of those
 * left behind. Apart from databases.ts so that jest's global setup and teardown load only `pg`.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const SCRATCH_PREFIX = 'vr_test_';
const SCRATCH_NAME = /^vr_test_(\d+)_[0-9a-f]{8}$/;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the scratch databases whose creating process is gone. A suite that timed out while an app
 * process hung, or a worker killed, never ran its `drop`; the name carries the creator's pid, so
 * the databases of processes still running (another run against the same server) are kept. The
 * server is assumed to be this machine's test server (TEST_DATABASE_URL), its pids ours. Returns
 * the names dropped.
 */
export async function dropAbandonedScratchDatabases(url: string): Promise<string[]> {
  const { rows } = await adminQueryAt(url, `SELECT datname FROM pg_database WHERE starts_with(datname, '${SCRATCH_PREFIX}')`);
  const abandoned = rows
    .map((row: { datname: string }) => row.datname)
    .filter((name) => {
      const match = SCRATCH_NAME.exec(name);
      return match !== null && !processAlive(Number(match[1]));
    });
  for (const name of abandoned) await adminQueryAt(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  return abandoned;
}

/** A new scratch database's name: the creating process's pid, then random. */
export function scratchDatabaseName(): string {
  return `${SCRATCH_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function adminQueryAt(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}
