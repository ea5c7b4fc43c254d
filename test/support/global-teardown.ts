import { dropAbandonedScratchDatabases } from './scratch-databases';

/**
 * jest globalTeardown: drop the scratch databases a suite left behind (every worker of this run has
 * exited by now), then stop what globalSetup started (a private PostgreSQL, a redis-server).
 */
export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const dropped = await dropAbandonedScratchDatabases(url).catch((error: Error) => {
      process.stderr.write(`  test teardown  could not sweep scratch databases: ${error.message}\n`);
      return [];
    });
    if (dropped.length > 0) process.stderr.write(`  test teardown  dropped ${dropped.length} scratch database(s) a suite left behind\n`);
  }
  await globalThis.vrProvisioned?.stop();
}
