/**
 * The sweep of scratch databases left behind (test/support/scratch-databases.ts, run by jest's
 * global setup and teardown): a database whose creating process is gone is dropped, one of a
 * process still running is kept, and databases not named as scratch ones are never touched.
 */
import { spawn } from 'node:child_process';
import { adminQueryAt, dropAbandonedScratchDatabases, scratchDatabaseName } from '../support/scratch-databases';
import { TEST_DATABASE_URL } from '../support/databases';

async function exists(name: string): Promise<boolean> {
  const { rows } = await adminQueryAt(TEST_DATABASE_URL, `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
  return rows.length === 1;
}

/** The pid of a process that has exited (spawned and waited for). */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

it("drops the databases of processes that are gone, and keeps live processes' and others'", async () => {
  const gone = `vr_test_${await exitedPid()}_0123abcd`;
  const mine = scratchDatabaseName();
  const other = `vr_testing_${await exitedPid()}_0123abcd`;
  for (const name of [gone, mine, other]) await adminQueryAt(TEST_DATABASE_URL, `CREATE DATABASE ${name}`);
  try {
    const dropped = await dropAbandonedScratchDatabases(TEST_DATABASE_URL);
    expect(dropped).toContain(gone);
    expect(dropped).not.toContain(mine);
    expect(await exists(gone)).toBe(false);
    expect(await exists(mine)).toBe(true);
    expect(await exists(other)).toBe(true);
  } finally {
    for (const name of [gone, mine, other]) await adminQueryAt(TEST_DATABASE_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
});
