/**
 * Read replicas (PostgreSQL streaming standbys) for the reads that tolerate a little staleness:
 * list and fetch queries. Everything else stays on the primary (see database.ts). One Prisma client
 * per server (each over its own `pg` pool), a health and lag monitor, round robin over the usable
 * replicas, and a client that re-runs a read on the primary when its replica turns out to be
 * unreachable; why not `@prisma/extension-read-replicas`: docs/deploy.md, "Read replicas".
 */
import pg from 'pg';
import type { PrismaClient } from '../../generated/prisma/client';
import { databaseFailureOf } from './failures';
import { statementView } from './statement-limiter';

export interface ReplicaStatus {
  /** host:port of the replica (its URL without credentials): a bounded metrics label. */
  name: string;
  /** The last health check answered, and no read has failed on it since. */
  healthy: boolean;
  /** Replay lag in milliseconds at the last check; undefined while unknown (never reached). */
  lagMs?: number;
  /** Healthy and within the lag limit: reads go to it. */
  usable: boolean;
}

/** Where reads went: `replica`, `primary` (no usable replica), and the two fallbacks. */
export interface ReadRouting {
  replica: number;
  primary: number;
  /** a replica failed (unreachable, recovery conflict) and the read was re-run on the primary */
  fallbackUnavailable: number;
  /** a fetch by id missed on the replica and was re-asked of the primary (read-your-writes) */
  fallbackNotFound: number;
}

export interface ReadClient {
  /** Where this request's reads go: a replica (with fallback to the primary) or the primary itself. */
  prisma: PrismaClient;
  /** Set when `prisma` reads from a replica: the primary, asked again about ids the replica does not know (yet). */
  primaryOnMiss?: PrismaClient;
}

interface Replica {
  name: string;
  prisma: PrismaClient;
  pool: pg.Pool;
  healthy: boolean;
  lagMs?: number;
}

/**
 * Lag as the standby sees it: zero when it has replayed everything it received (`now() -
 * pg_last_xact_replay_timestamp()` alone would grow on an idle primary), otherwise how old the last
 * replayed transaction is. A server that is not in recovery (a promoted standby) has no lag.
 */
const LAG_SQL = `
  SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
    ELSE COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000, 'Infinity')
  END::float8 AS lag_ms`;

/** host:port of a postgresql:// URL, never its credentials. */
export function serverName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}`;
  } catch {
    return 'replica';
  }
}

/** SQLSTATE 40001 on a standby: the query was cancelled by a conflict with recovery. Re-run it on the primary. */
function shouldFallBack(error: unknown): boolean {
  if (databaseFailureOf(error)?.kind === 'unavailable') return true;
  const text = error instanceof Error ? error.message : String(error);
  return /conflict with recovery/i.test(text);
}

export class ReplicaSet {
  private readonly replicas: Replica[];
  private next = 0;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  readonly routing: ReadRouting = { replica: 0, primary: 0, fallbackUnavailable: 0, fallbackNotFound: 0 };

  constructor(
    replicas: Omit<Replica, 'healthy'>[],
    private readonly primary: PrismaClient,
    private readonly maxLagMs: number,
  ) {
    this.replicas = replicas.map((replica) => ({ ...replica, healthy: false }));
  }

  /** Checks every replica now, then every `intervalMs` in the background. */
  async start(intervalMs: number): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), intervalMs).unref();
  }

  /** One round of health and lag checks (a round still running is joined, not doubled). */
  check(): Promise<void> {
    this.checking ??= Promise.all(
      this.replicas.map(async (replica) => {
        try {
          const { rows } = await replica.pool.query<{ lag_ms: number }>(LAG_SQL);
          replica.lagMs = Number(rows[0]?.lag_ms);
          replica.healthy = true;
        } catch {
          replica.healthy = false;
        }
      }),
    ).then(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      healthy: replica.healthy,
      lagMs: replica.lagMs,
      usable: this.usable(replica),
    }));
  }

  private usable(replica: Replica): boolean {
    return replica.healthy && replica.lagMs !== undefined && replica.lagMs <= this.maxLagMs;
  }

  /** The next usable replica in round-robin order, or undefined when none is. */
  private pick(): Replica | undefined {
    for (let tried = 0; tried < this.replicas.length; tried += 1) {
      const replica = this.replicas[this.next % this.replicas.length]!;
      this.next = (this.next + 1) % this.replicas.length;
      if (this.usable(replica)) return replica;
    }
    return undefined;
  }

  /** The read client of one request. */
  reader(): ReadClient {
    const replica = this.pick();
    if (!replica) {
      return { prisma: countingClient(this.primary, () => (this.routing.primary += 1)) };
    }
    const prisma = statementView(this.primary, ROUTED_METHODS, async (invoke) => {
      try {
        const result = await invoke(replica.prisma);
        this.routing.replica += 1;
        return result;
      } catch (error) {
        if (!shouldFallBack(error)) throw error;
        // Out of rotation until the monitor reaches it again; this read goes to the primary.
        replica.healthy = false;
        this.routing.fallbackUnavailable += 1;
        return invoke(this.primary);
      }
    });
    const primaryOnMiss = countingClient(this.primary, () => (this.routing.fallbackNotFound += 1));
    return { prisma, primaryOnMiss };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.checking;
    await Promise.all(
      this.replicas.map(async (replica) => {
        await replica.prisma.$disconnect();
        await replica.pool.end();
      }),
    );
  }
}

/** Client methods that run a read we may route; `$transaction`, `$executeRaw` and the rest stay on the primary. */
const ROUTED_METHODS = new Set(['$queryRaw', '$queryRawUnsafe']);

/** `client` itself, counting each statement run through it. */
function countingClient(client: PrismaClient, count: () => void): PrismaClient {
  return statementView(client, ROUTED_METHODS, async (invoke) => {
    count();
    return invoke(client);
  });
}
