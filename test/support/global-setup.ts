/** jest globalSetup: provide what the suite needs (test/support/provision.ts), one line each. */
import { provision, type Provisioned } from './provision';

declare global {
  var vrProvisioned: Provisioned | undefined;
}

export default async function globalSetup(): Promise<void> {
  const provisioned = await provision();
  globalThis.vrProvisioned = provisioned;
  process.stderr.write(`\n${provisioned.lines.map((line) => `  test setup  ${line}`).join('\n')}\n`);
}
