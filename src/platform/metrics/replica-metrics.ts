/**
 * Read replicas seen from the API, read from the database handle at scrape time: each replica's
 * replay lag and whether it gets reads, and where reads went (replica, primary, the two fallbacks).
 * Labels: the replica's host:port, from the configuration (bounded), never credentials.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/database';

export function registerReplicaMetrics(registry: Registry, db: Pick<Database, 'replicaStatus' | 'readRouting'>): void {
  if (db.replicaStatus().length === 0) return;
  new Gauge({
    name: 'vr_db_replica_lag_seconds',
    help:
      'Replication replay lag of each read replica at its last check ' +
      '(0 when it has replayed all it received; absent while unreachable).',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const replica of db.replicaStatus()) {
        if (replica.healthy && replica.lagMs !== undefined) this.set({ replica: replica.name }, replica.lagMs / 1000);
      }
    },
  });
  new Gauge({
    name: 'vr_db_replica_up',
    help: 'Whether each read replica answers its health check (1) and gets reads: within REPLICA_MAX_LAG_MS (label in_rotation).',
    labelNames: ['replica', 'in_rotation'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const replica of db.replicaStatus()) {
        this.set({ replica: replica.name, in_rotation: String(replica.usable) }, replica.healthy ? 1 : 0);
      }
    },
  });
  new Counter({
    name: 'vr_db_reads_total',
    help:
      'List and fetch statements by where they ran: replica, primary (no usable replica), ' +
      'primary_fallback_unavailable (the replica failed), primary_fallback_not_found (a fetch by id missed on the replica).',
    labelNames: ['target'] as const,
    registers: [registry],
    collect() {
      const routing = db.readRouting();
      this.reset();
      this.inc({ target: 'replica' }, routing.replica);
      this.inc({ target: 'primary' }, routing.primary);
      this.inc({ target: 'primary_fallback_unavailable' }, routing.fallbackUnavailable);
      this.inc({ target: 'primary_fallback_not_found' }, routing.fallbackNotFound);
    },
  });
}
