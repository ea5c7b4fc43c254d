/** Command-line options of `npm run loadtest` (see loadtest/run.ts for the list). */
import { parseArgs } from 'node:util';
import { isNemesis, NEMESES, type NemesisName } from './nemesis';

export interface LoadTestOptions {
  /** seconds of mixed traffic */
  duration: number;
  /** concurrent client connections (autocannon) */
  connections: number;
  /** client-side request timeout, seconds */
  timeout: number;
  /** how long the load balancer waits for an instance's answer, seconds */
  upstreamTimeout: number;
  /** reports seeded into the empty database */
  reports: number;
  /** use this PostgreSQL server instead of a private one */
  databaseUrl?: string;
  /** shell command that restarts the external PostgreSQL server (only with databaseUrl) */
  pgRestartCommand?: string;
  /** Redis for the shared rate limits; '' = none (per-instance memory) */
  redisUrl: string;
  /** seconds the orchestrator waits before restarting a dead instance */
  restartDelay: number;
  /** seconds to wait for the dispatchers to drain the outbox after the run */
  drainTimeout: number;
  kill: boolean;
  pgRestart: boolean;
  /** SIGTERM api-2 after the PostgreSQL restart (once api-1 is back), as a rolling deploy does */
  gracefulRestart: boolean;
  /** keep the temporary folder (database, instance logs, outbox file) */
  keep: boolean;
  /** the built-in balancer, or HAProxy with deploy/haproxy.cfg */
  balancer: 'builtin' | 'haproxy';
  /**
   * single: one PostgreSQL server. replica: a primary, a streaming standby (pg_basebackup) for list
   * and fetch reads, and PgBouncer (transaction mode) in front of the primary; the fault at 2/3 is
   * then the standby stopped for `replicaOutage` seconds instead of a primary restart.
   */
  topology: 'single' | 'replica' | 'patroni';
  /**
   * patroni: seconds after the traffic starts when the Patroni leader's postmaster gets `kill -9`
   * (default: half the duration).
   */
  killLeaderAfter?: number;
  /**
   * patroni: instead of the kill -9, one nemesis of loadtest/nemesis.ts at `nemesisAfter` seconds
   * (default a third of the run), its fault lasting `faultSeconds`; a write probe on every node and
   * the history checker (loadtest/nemesis-checker.ts) judge the run.
   */
  nemesis?: NemesisName;
  nemesisAfter?: number;
  faultSeconds: number;
  /** seconds the standby stays down in the replica topology */
  replicaOutage: number;
}

const USAGE = `npm run loadtest -- [options]
  --duration S             seconds of traffic (default 60)
  --connections N          client connections (default 16)
  --timeout S              client request timeout (default 10)
  --upstream-timeout S     load balancer's wait for an instance (default 30)
  --reports N              reports to seed (default 2400)
  --database-url URL       external PostgreSQL instead of a private server (its data is modified)
  --pg-restart-command CMD how to restart that external server (else no PostgreSQL restart)
  --redis-url URL          shared rate limits (default redis://127.0.0.1:6379/5; '' for none)
  --restart-delay S        orchestrator's delay before restarting a dead instance (default 5)
  --drain-timeout S        wait for the outbox to drain after the run (default 90)
  --no-kill                do not kill an instance mid-run
  --no-pg-restart          do not restart PostgreSQL mid-run
  --graceful-restart       then SIGTERM api-2 (once api-1 is back in rotation), as a deploy does;
                           give it --duration 90 or more on a busy machine
  --keep                   keep the temporary folder (database, logs, outbox.log)
  --balancer B             builtin (default) or haproxy: deploy/haproxy.cfg run by the local haproxy
  --topology T             single (default) or replica: primary + pg_basebackup standby (reads)
                           + PgBouncer in transaction mode (writes); at 2/3 the standby is stopped
                           for --replica-outage S (default 10) instead of a primary restart;
                           or patroni: etcd + three PostgreSQL nodes under Patroni (synchronous
                           mode), HAProxy (/primary, /replica), PgBouncer (deploy/patroni/)
  --kill-leader-after S    patroni: kill -9 the leader's postmaster S seconds into the traffic
                           (default: half of --duration); prints the write gap
  --nemesis NAME           patroni: instead, one of ${NEMESES.join(', ')}
                           (loadtest/nemesis.ts) behind HAProxy, with a write probe on every node
                           and the history checker; give it --duration 90 or more
  --nemesis-after S        when it strikes (default: a third of --duration)
  --fault S                how long etcd stays down, the partition holds, the pause lasts
                           (default 30; a pause lasts at least the leader TTL + 5 s)`;

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"\n\n${USAGE}`);
  return value;
}

export function parseOptions(argv: string[]): LoadTestOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      timeout: { type: 'string' },
      'upstream-timeout': { type: 'string' },
      reports: { type: 'string' },
      'database-url': { type: 'string' },
      'pg-restart-command': { type: 'string' },
      'redis-url': { type: 'string' },
      'restart-delay': { type: 'string' },
      'drain-timeout': { type: 'string' },
      'no-kill': { type: 'boolean' },
      'no-pg-restart': { type: 'boolean' },
      'graceful-restart': { type: 'boolean' },
      keep: { type: 'boolean' },
      balancer: { type: 'string' },
      topology: { type: 'string' },
      'replica-outage': { type: 'string' },
      'kill-leader-after': { type: 'string' },
      nemesis: { type: 'string' },
      'nemesis-after': { type: 'string' },
      fault: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const balancer = values.balancer ?? 'builtin';
  if (balancer !== 'builtin' && balancer !== 'haproxy') throw new Error(`--balancer is builtin or haproxy, got "${balancer}"\n\n${USAGE}`);
  const topology = values.topology ?? 'single';
  if (topology !== 'single' && topology !== 'replica' && topology !== 'patroni')
    throw new Error(`--topology is single, replica or patroni, got "${topology}"\n\n${USAGE}`);
  if (topology !== 'single' && values['database-url'])
    throw new Error(`--topology ${topology} starts its own servers: no --database-url\n\n${USAGE}`);
  if (topology !== 'patroni' && values['kill-leader-after']) throw new Error(`--kill-leader-after needs --topology patroni\n\n${USAGE}`);
  const duration = positive('duration', values.duration, 60);
  const nemesis = values.nemesis;
  if (nemesis !== undefined && !isNemesis(nemesis))
    throw new Error(`--nemesis is one of ${NEMESES.join(', ')}, got "${nemesis}"\n\n${USAGE}`);
  if (nemesis !== undefined && topology !== 'patroni') throw new Error(`--nemesis needs --topology patroni\n\n${USAGE}`);
  if (nemesis !== undefined && values['kill-leader-after'])
    throw new Error(`--nemesis replaces --kill-leader-after: one or the other\n\n${USAGE}`);
  const killLeaderAfter =
    topology === 'patroni' && nemesis === undefined ? positive('kill-leader-after', values['kill-leader-after'], duration / 2) : undefined;
  if (killLeaderAfter !== undefined && killLeaderAfter >= duration)
    throw new Error(`--kill-leader-after must be shorter than --duration (${duration} s)\n\n${USAGE}`);
  const nemesisAfter = nemesis !== undefined ? positive('nemesis-after', values['nemesis-after'], duration / 3) : undefined;
  const faultSeconds = positive('fault', values.fault, 30);
  if (nemesisAfter !== undefined && nemesisAfter >= duration)
    throw new Error(`--nemesis-after must be shorter than --duration (${duration} s)\n\n${USAGE}`);
  return {
    // The api-kill nemesis is one instance killed behind HAProxy; every nemesis is judged through it.
    balancer: nemesis !== undefined ? 'haproxy' : balancer,
    nemesis,
    nemesisAfter,
    faultSeconds,
    topology,
    replicaOutage: positive('replica-outage', values['replica-outage'], 10),
    duration,
    killLeaderAfter,
    connections: Math.round(positive('connections', values.connections, 16)),
    timeout: positive('timeout', values.timeout, 10),
    upstreamTimeout: positive('upstream-timeout', values['upstream-timeout'], 30),
    reports: Math.round(positive('reports', values.reports, 2400)),
    databaseUrl: values['database-url'] || undefined,
    pgRestartCommand: values['pg-restart-command'] || undefined,
    redisUrl: values['redis-url'] ?? 'redis://127.0.0.1:6379/5',
    restartDelay: positive('restart-delay', values['restart-delay'], 5),
    drainTimeout: positive('drain-timeout', values['drain-timeout'], 90),
    // With a nemesis, the only fault is the nemesis.
    kill: !values['no-kill'] && nemesis === undefined,
    pgRestart: !values['no-pg-restart'],
    gracefulRestart: values['graceful-restart'] === true,
    keep: values.keep === true,
  };
}
