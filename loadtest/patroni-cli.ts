/**
 * `npm run patroni`: starts the Patroni topology of docs/deploy.md on this machine (etcd, three
 * PostgreSQL 15 nodes under Patroni, HAProxy, PgBouncer; loadtest/patroni-topology.ts), prints the
 * URLs to give the service, and keeps it running until Ctrl-C, which stops everything and removes
 * the temporary folder. `--check` starts it, prints the cluster and stops at once.
 */
import { startPatroniTopology } from './patroni-topology';

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log('starting etcd, three Patroni nodes, HAProxy and PgBouncer');
  const began = performance.now();
  const topology = await startPatroniTopology({ log });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping the topology and removing its folder');
    await topology.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(130));
  process.once('SIGTERM', () => void stop(143));
  log(`ready in ${((performance.now() - began) / 1000).toFixed(1)} s (folder ${topology.dir})`);
  process.stdout.write(
    [
      `DATABASE_URL=${topology.pgbouncerUrl}`,
      `DATABASE_DIRECT_URL=${topology.primaryUrl}`,
      `DATABASE_REPLICA_URLS=${topology.replicasUrl}`,
      `# members: ${(await topology.members()).map((m) => `${m.name} ${m.role} ${m.state}`).join(', ')}`,
      '',
    ].join('\n'),
  );
  if (check) await stop(0);
  else log('Ctrl-C stops it');
}

main().catch((error: unknown) => {
  process.stderr.write(`patroni topology failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
