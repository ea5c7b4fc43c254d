/**
 * One network namespace per Patroni node, so that a node can be cut off from the others for real
 * (the "partition" nemesis, loadtest/nemesis.ts). On one machine every process talks over
 * 127.0.0.1, where a packet filter cannot tell which node opened a connection (the source port is
 * ephemeral, every node runs as `postgres`); with a namespace each node has an address of its own.
 *
 *   root namespace: etcd, HAProxy, PgBouncer, the service     bridge <id>br  10.A.B.1/24
 *     ├─ veth ── namespace <id>-1: Patroni + PostgreSQL pg-1   10.A.B.2
 *     ├─ veth ── namespace <id>-2: Patroni + PostgreSQL pg-2   10.A.B.3
 *     └─ veth ── namespace <id>-3: Patroni + PostgreSQL pg-3   10.A.B.4
 *
 * The nodes reach each other through the bridge (no IP forwarding to switch on), and etcd,
 * HAProxy and the probes through the bridge's address. `partition(i)` loads two nftables tables:
 * the bridge drops every frame to or from node i (replication, Patroni's REST calls between
 * members), and the root namespace drops node i's traffic with etcd's client port. HAProxy and the
 * service still reach node i: the old leader stays visible to clients, the nastier case (a
 * minority partition that still has clients). `heal()` deletes the tables.
 *
 * Root only (namespaces, veth, nftables: `apt-get install nftables iproute2`).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NodeNetwork {
  /** the bridge's address in the root namespace: where the nodes reach etcd */
  bridgeAddress: string;
  /** node i's address (i from 0) */
  addresses: string[];
  /** the clients' network, for pg_hba */
  cidr: string;
  /** the command prefix that runs a program in node i's namespace */
  execPrefix(i: number): string[];
  /** cuts node i off from the other nodes and from etcd's client port */
  partition(i: number, etcdPort: number): Promise<void>;
  /** undoes partition() */
  heal(): Promise<void>;
  /** the node isolated now, if any */
  isolated(): number | undefined;
  destroy(): Promise<void>;
}

const ip = (...args: string[]) => run('ip', args);

async function usedPrefixes(): Promise<string> {
  try {
    return (await run('ip', ['-4', '-o', 'addr'])).stdout + (await run('ip', ['-4', 'route'])).stdout;
  } catch {
    return '';
  }
}

export async function createNodeNetwork(count: number): Promise<NodeNetwork> {
  const id = `vr${randomBytes(3).toString('hex')}`;
  // A /24 nobody on this machine uses (another topology started at the same time picks its own).
  const taken = await usedPrefixes();
  let prefix = '';
  for (let attempt = 0; attempt < 50 && !prefix; attempt += 1) {
    const candidate = `10.${100 + (randomBytes(1)[0]! % 100)}.${randomBytes(1)[0]! % 250}`;
    if (!taken.includes(`${candidate}.`)) prefix = candidate;
  }
  if (!prefix) throw new Error('no free 10.x.y.0/24 for the nodes');
  const bridge = `${id}br`;
  const namespaces = Array.from({ length: count }, (_, i) => `${id}-${i + 1}`);
  const addresses = namespaces.map((_, i) => `${prefix}.${i + 2}`);
  const table = `${id}_partition`;
  let isolatedNode: number | undefined;
  let destroyed = false;

  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    await run('nft', ['delete', 'table', 'bridge', table]).catch(() => undefined);
    await run('nft', ['delete', 'table', 'inet', table]).catch(() => undefined);
    // Deleting a namespace deletes its end of the veth pair, and with it the other end.
    for (const ns of namespaces) await ip('netns', 'del', ns).catch(() => undefined);
    await ip('link', 'del', bridge).catch(() => undefined);
  };

  try {
    await ip('link', 'add', 'name', bridge, 'type', 'bridge');
    await ip('addr', 'add', `${prefix}.1/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const [i, ns] of namespaces.entries()) {
      const host = `${id}h${i + 1}`;
      const inner = `${id}n${i + 1}`;
      await ip('netns', 'add', ns);
      await ip('link', 'add', host, 'type', 'veth', 'peer', 'name', inner, 'netns', ns);
      await ip('link', 'set', host, 'master', bridge);
      await ip('link', 'set', host, 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      await ip('-n', ns, 'addr', 'add', `${addresses[i]}/24`, 'dev', inner);
      await ip('-n', ns, 'link', 'set', inner, 'up');
    }
  } catch (error) {
    await destroy();
    throw new Error(`cannot make the nodes' network namespaces (root, iproute2): ${(error as Error).message}`);
  }

  return {
    bridgeAddress: `${prefix}.1`,
    addresses,
    cidr: `${prefix}.0/24`,
    execPrefix: (i) => ['ip', 'netns', 'exec', namespaces[i]!],
    isolated: () => isolatedNode,
    async partition(i, etcdPort) {
      const address = addresses[i]!;
      const rules = [
        `table bridge ${table} {`,
        '  chain forward { type filter hook forward priority 0; policy accept;',
        `    ip saddr ${address} drop`,
        `    ip daddr ${address} drop`,
        '  }',
        '}',
        `table inet ${table} {`,
        '  chain input { type filter hook input priority 0; policy accept;',
        `    ip saddr ${address} tcp dport ${etcdPort} drop`,
        '  }',
        '  chain output { type filter hook output priority 0; policy accept;',
        `    ip daddr ${address} tcp sport ${etcdPort} drop`,
        '  }',
        '}',
      ].join('\n');
      await new Promise<void>((resolve, reject) => {
        const child = execFile('nft', ['-f', '-'], (error) => (error ? reject(new Error(`nft: ${error.message}`)) : resolve()));
        child.stdin!.end(`${rules}\n`);
      });
      isolatedNode = i;
    },
    async heal() {
      await run('nft', ['delete', 'table', 'bridge', table]).catch(() => undefined);
      await run('nft', ['delete', 'table', 'inet', table]).catch(() => undefined);
      isolatedNode = undefined;
    },
    destroy,
  };
}
