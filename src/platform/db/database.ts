/**
 * Opens the database: a PostgreSQL server through @prisma/adapter-pg when a URL is given, else the
 * embedded PGlite (same SQL, same migrations) through pglite-prisma-adapter.
 */
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg, { type CustomTypesConfig } from 'pg';
import { PrismaClient } from '../../generated/prisma/client';
import { withDirectRawQueries } from './direct-raw-queries';
import { INACTIVE, PostgresListener, type NotificationHandlers, type Subscription } from './notifications';
import { ReplicaSet, serverName, type ReadClient, type ReadRouting, type ReplicaStatus } from './replicas';
import { parseTimestamptz } from './timestamptz';
import { tracedAdapterFactory } from '../tracing/sql-spans';
import { tracing } from '../tracing/tracing';

export type DatabaseKind = 'postgres' | 'pglite';

/** One connection, for what Prisma's pooled client cannot do: migration scripts, session-level advisory locks. */
export interface SqlSession {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string): Promise<void>;
}

export interface Database {
  kind: DatabaseKind;
  /** The primary: writes, and every read that must see the latest data. */
  prisma: PrismaClient;
  /** Where one request's list and fetch reads go: a usable replica (replicas.ts), else the primary. */
  reader(): ReadClient;
  /** The replicas' health and lag (empty without replicas). */
  replicaStatus(): ReplicaStatus[];
  /** Counts of where reads went since the database was opened (zeros without replicas). */
  readRouting(): ReadRouting;
  /** Runs `work` on one dedicated connection (migrations, advisory locks): to `directUrl` when set, else from the pool. */
  withSession<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /** LISTEN on `channel`; inactive behind a transaction-mode PgBouncer without `directUrl`. */
  listen(channel: string, handlers: NotificationHandlers): Subscription;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * postgresql://…; absent: PGlite. `?pgbouncer=true`: a transaction-mode PgBouncer, sent no start-up
   * parameter it does not know (statement_timeout is then the pooler's or the role's: docs/deploy.md).
   */
  url?: string;
  /** PostgreSQL itself when `url` is a pooler: `withSession` (session-level advisory locks) connects here. */
  directUrl?: string;
  /** Streaming replicas for list and fetch reads (PostgreSQL only), as in AppConfig. */
  replicaUrls?: string[];
  replicaMaxLagMs?: number;
  replicaCheckIntervalMs?: number;
  /** PGlite data folder, or `memory://` for an in-memory database. */
  dataDir?: string;
  poolMax?: number;
  /** How long a query waits for a pooled connection: short, so requests fail fast with 503 while PostgreSQL is down. */
  connectionTimeoutMs?: number;
  /**
   * PostgreSQL `statement_timeout` of the pooled connections (absent or 0: none), so that work the
   * client stopped waiting for stops in the database too. `withSession` runs without it.
   */
  statementTimeoutMs?: number;
  /** Called for every SQL statement Prisma runs (tests count them; metrics time them). */
  onQuery?: (event: { query: string; durationMs: number }) => void;
}

type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]['adapter']>;

function prismaClient(adapter: AdapterFactory, options: DatabaseOptions) {
  const prisma = new PrismaClient({
    // A span per statement with tracing on (tracing/sql-spans.ts); the adapter as it is otherwise.
    adapter: tracing.on ? tracedAdapterFactory(adapter) : adapter,
    log: options.onQuery ? [{ emit: 'event', level: 'query' }] : [],
  });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    prisma.$on('query' as never, (event: { query: string; duration: number }) =>
      onQuery({ query: event.query, durationMs: event.duration }),
    );
  }
  return prisma;
}

const NO_REPLICA_ROUTING: ReadRouting = Object.freeze({ replica: 0, primary: 0, fallbackUnavailable: 0, fallbackNotFound: 0 });

/** A connection string without our own `pgbouncer` flag, and whether it was set. */
function pgbouncerFlag(url: string): { url: string; pgbouncer: boolean } {
  const parsed = new URL(url);
  const pgbouncer = /^(1|true|yes|on)$/i.test(parsed.searchParams.get('pgbouncer') ?? '');
  parsed.searchParams.delete('pgbouncer');
  return { url: parsed.toString(), pgbouncer };
}

const rawQueryTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary'
      ? parseTimestamptz
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

function openPool(rawUrl: string, options: DatabaseOptions, applicationName: string): pg.Pool {
  const { url, pgbouncer } = pgbouncerFlag(rawUrl);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 2_000,
    idleTimeoutMillis: 30_000,
    // Sent at connection start-up, so it holds for every statement on the connection. PgBouncer
    // refuses start-up parameters it does not know: behind it, the pooler sets it (connect_query).
    ...(options.statementTimeoutMs && !pgbouncer ? { statement_timeout: options.statementTimeoutMs } : {}),
    // Which server a backend serves (pg_stat_activity.application_name): primary or replica.
    application_name: applicationName,
    // A peer that vanished without a reset (network cut) is detected instead of waited on forever.
    keepAlive: true,
    // The raw queries' parsers (Prisma's adapter passes its own with each of its queries).
    types: rawQueryTypes,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool
  // drops it and opens a new one on the next query, so the service recovers on its own.
  pool.on('error', () => undefined);
  return pool;
}

/** A PostgreSQL server's pool and client: Prisma over the pool, its raw reads straight on the pool. */
function openServer(url: string, options: DatabaseOptions, applicationName: string): { pool: pg.Pool; prisma: PrismaClient } {
  const pool = openPool(url, options, applicationName);
  const prisma = prismaClient(new PrismaPg(pool), options);
  return { pool, prisma: withDirectRawQueries(prisma, pool, { onQuery: options.onQuery, namedStatements: !pgbouncerFlag(url).pgbouncer }) };
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const { pool, prisma } = openServer(url, options, 'vr-api');
  const { pgbouncer } = pgbouncerFlag(url);
  const replicaUrls = options.replicaUrls ?? [];
  const replicas =
    replicaUrls.length === 0
      ? undefined
      : new ReplicaSet(
          replicaUrls.map((replicaUrl) => ({ name: serverName(replicaUrl), ...openServer(replicaUrl, options, 'vr-api-replica') })),
          prisma,
          options.replicaMaxLagMs ?? 5_000,
        );
  await replicas?.start(options.replicaCheckIntervalMs ?? 1_000);
  // LISTEN is session state: PostgreSQL itself, never a transaction-mode pooler.
  const listenUrl = options.directUrl ?? (pgbouncer ? undefined : url);
  let listener: PostgresListener | undefined;

  async function session<T>(client: pg.ClientBase, work: (session: SqlSession) => Promise<T>): Promise<T> {
    return work({
      query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
      exec: async (script) => {
        await client.query(script);
      },
    });
  }

  return {
    kind: 'postgres',
    prisma,
    reader: () => replicas?.reader() ?? { prisma },
    replicaStatus: () => replicas?.status() ?? [],
    readRouting: () => (replicas ? { ...replicas.routing } : NO_REPLICA_ROUTING),
    async withSession(work) {
      if (options.directUrl) {
        // A connection of its own, to PostgreSQL itself: session state (advisory locks) holds.
        const client = new pg.Client({
          connectionString: pgbouncerFlag(options.directUrl).url,
          connectionTimeoutMillis: options.connectionTimeoutMs ?? 2_000,
          application_name: 'vr-api-session',
        });
        await client.connect();
        try {
          return await session(client, work);
        } finally {
          await client.end().catch(() => undefined);
        }
      }
      const client = await pool.connect();
      const timeout = options.statementTimeoutMs && !pgbouncer;
      try {
        // Migrations (an index build) may rightly outlast a request's statement timeout.
        if (timeout) await client.query('SET statement_timeout = 0');
        return await session(client, work);
      } finally {
        // RESET goes back to the start-up value; a connection that cannot even do that is discarded.
        let broken: Error | undefined;
        if (timeout) await client.query('RESET statement_timeout').catch((error: Error) => (broken = error));
        client.release(broken);
      }
    },
    listen(channel, handlers) {
      if (!listenUrl) return INACTIVE;
      listener ??= new PostgresListener(pgbouncerFlag(listenUrl).url);
      return listener.subscribe(channel, handlers);
    },
    async close() {
      await listener?.close();
      await replicas?.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

async function openPglite(dataDir: string, options: DatabaseOptions): Promise<Database> {
  // The contrib entry point has ESM-only typings; a dynamic import works from CommonJS as well.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const pglite = await PGlite.create(dataDir, { extensions: { pg_trgm } });
  const prisma = prismaClient(new PrismaPGlite(pglite), options);
  return {
    kind: 'pglite',
    prisma,
    reader: () => ({ prisma }),
    replicaStatus: () => [],
    readRouting: () => NO_REPLICA_ROUTING,
    // PGlite has a single connection: the session is the database itself.
    withSession: (work) =>
      work({
        query: async (sql, params) => (await pglite.query<never>(sql, params as unknown[])).rows,
        exec: async (script) => {
          await pglite.exec(script);
        },
      }),
    listen(channel, handlers) {
      // One process owns a PGlite database: every NOTIFY comes from here, and arrives.
      let active = false;
      void pglite.listen(channel, handlers.message).then(() => {
        active = true;
      });
      return {
        get active() {
          return active;
        },
      };
    },
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

export function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir ?? 'memory://', options);
}
