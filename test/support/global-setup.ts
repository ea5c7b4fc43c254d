/** jest globalSetup: provide what the suite needs (test/support/provision.ts), one line each. */
import { provision, type Provisioned } from './provision';
import { dropAbandonedScratchDatabases } from './scratch-databases';

declare global {
  var vrProvisioned: Provisioned | undefined;
}

export default async function globalSetup(): Promise<void> {
  const provisioned = await provision();
  globalThis.vrProvisioned = provisioned;
  // What an earlier run left behind (killed before its teardown): its processes are gone.
  const dropped = await dropAbandonedScratchDatabases(process.env.TEST_DATABASE_URL!);
  if (dropped.length > 0) provisioned.lines.push(`PostgreSQL: dropped ${dropped.length} scratch database(s) of runs that are gone`);
  process.stderr.write(`\n${provisioned.lines.map((line) => `  test setup  ${line}`).join('\n')}\n`);
}
