/**
 * Opens the database: a PostgreSQL server through @prisma/adapter-pg when a URL is given, else the
 * embedded PGlite (same SQL, same migrations) through pglite-prisma-adapter.
 */
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { PrismaClient } from '../../generated/prisma/client';
import type { SqlSession } from './sql-session';

export type DatabaseKind = 'postgres' | 'pglite';

export interface Database {
  kind: DatabaseKind;
  prisma: PrismaClient;
  /** Runs `work` on one dedicated connection (migrations, advisory locks). */
  withSession<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgresql://… ; when absent, PGlite is used. */
  url?: string;
  /** PGlite data folder, or `memory://` for an in-memory database. */
  dataDir?: string;
  poolMax?: number;
  /**
   * How long a query waits for a pooled connection (to open one, or for one to come free) before
   * failing. Short, so that requests fail fast with 503 while PostgreSQL is down. Default 2000.
   */
  connectionTimeoutMs?: number;
  /**
   * PostgreSQL `statement_timeout` of the pooled connections (PostgreSQL only; absent or 0: none),
   * so that work the client stopped waiting for stops in the database too. `withSession` (migrations,
   * advisory locks) runs without it.
   */
  statementTimeoutMs?: number;
  /** Called for every SQL statement Prisma runs (tests count them; metrics time them). */
  onQuery?: (event: { query: string; durationMs: number }) => void;
}

type AdapterFactory = NonNullable<ConstructorParameters<typeof PrismaClient>[0]['adapter']>;

function prismaClient(adapter: AdapterFactory, options: DatabaseOptions) {
  const prisma = new PrismaClient({
    adapter,
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

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  // int8 (count(*)) as a JS number, as PGlite returns it: counts here never exceed 2^53.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 2_000,
    idleTimeoutMillis: 30_000,
    // Sent at connection start-up, so it holds for every statement on the connection.
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    // A peer that vanished without a reset (network cut) is detected instead of waited on forever.
    keepAlive: true,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool
  // drops it and opens a new one on the next query, so the service recovers on its own.
  pool.on('error', () => undefined);
  const prisma = prismaClient(new PrismaPg(pool), options);
  return {
    kind: 'postgres',
    prisma,
    async withSession(work) {
      const client = await pool.connect();
      try {
        // Migrations (an index build) may rightly outlast a request's statement timeout.
        if (options.statementTimeoutMs) await client.query('SET statement_timeout = 0');
        return await work({
          query: async (sql, params) => (await client.query(sql, params as unknown[])).rows,
          exec: async (script) => {
            await client.query(script);
          },
        });
      } finally {
        // RESET goes back to the start-up value; a connection that cannot even do that is discarded.
        let broken: Error | undefined;
        if (options.statementTimeoutMs) broken = await client.query('RESET statement_timeout').then(() => undefined, (error: Error) => error);
        client.release(broken);
      }
    },
    async close() {
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
    // PGlite has a single connection: the session is the database itself.
    withSession: (work) =>
      work({
        query: async (sql, params) => (await pglite.query<never>(sql, params as unknown[])).rows,
        exec: async (script) => {
          await pglite.exec(script);
        },
      }),
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

export function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.dataDir ?? 'memory://', options);
}
