/**
 * `$queryRaw` answered by the `pg` pool itself, on PostgreSQL. Prisma's raw path costs more CPU
 * than the statement it sends: its driver adapter converts every value of every row
 * (`normalize_timestamptz`…), then the client deserializes the result once more by type. On a page
 * of 100 reports that was 14% of the request's CPU in the profile (bench/HISTORY.md, 2026-11-25). The driver
 * already returns what the callers read: Date for timestamps, numbers for int4 (counts are cast
 * `::int`), parsed jsonb, arrays for text[].
 *
 * Model calls (`findMany`…) and interactive transactions stay Prisma's; so does everything on
 * PGlite, whose single connection is shared with Prisma's transactions: a query from outside the
 * adapter would run in the middle of one.
 */
import pg from 'pg';
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { logger } from '../logger';
import { inSqlSpan } from '../tracing/sql-spans';
import { tracing } from '../tracing/tracing';
import { preparedOwner, preparedStatementLost, StatementNames } from './prepared-statements';

export type QueryObserver = (event: { query: string; durationMs: number }) => void;

/** `$queryRaw` takes a `Prisma.Sql` or is used as a tagged template. */
function sqlOf(first: unknown, values: unknown[]): Prisma.Sql {
  if (first instanceof Prisma.Sql) return first;
  return Prisma.sql(first as TemplateStringsArray, ...values);
}

export interface DirectRawQueryOptions {
  onQuery?: QueryObserver;
  /** false behind a transaction-mode pooler (`?pgbouncer=true`): a prepared statement lives on one server connection */
  namedStatements: boolean;
}

/**
 * A named statement as pg's own Query. Given a config object, pg copies it by its property
 * descriptors on every query (`cloneQueryConfig`: ~1.5 % of a one-report request's CPU in the
 * profile); a Query made from text is not copied. pg-pool hands it to the client as it is and
 * resolves with its result, as for a config (its typings say a Query comes back: it does not).
 */
function namedQuery(name: string, text: string, values: unknown[]): pg.QueryConfig {
  const query = new pg.Query(text, values) as pg.Query & { name: string };
  query.name = name;
  return query as unknown as pg.QueryConfig;
}

export function withDirectRawQueries(prisma: PrismaClient, pool: pg.Pool, options: DirectRawQueryOptions): PrismaClient {
  const names = new StatementNames(options.namedStatements);
  const run = async (sql: Prisma.Sql): Promise<unknown[]> => {
    const owner = preparedOwner(sql);
    const name = owner === undefined ? undefined : names.nameOf(sql.text, owner);
    if (name === undefined) return (await pool.query(sql.text, sql.values)).rows;
    try {
      return (await pool.query(namedQuery(name, sql.text, sql.values))).rows;
    } catch (error) {
      if (!preparedStatementLost(error)) throw error;
      // The connection does not hold what the driver believes it prepared there: a pooler between
      // them, or a migration under a kept plan. Naming stops for this pool; this statement runs
      // again (so does each one already sent named when another found out first).
      if (names.enabled) {
        names.disable();
        logger.warn(
          { code: (error as { code?: string }).code },
          'prepared statements turned off for this pool: the server did not keep them',
        );
      }
      return (await pool.query(sql.text, sql.values)).rows;
    }
  };
  const queryRaw = async (first: unknown, ...values: unknown[]): Promise<unknown[]> => {
    const sql = sqlOf(first, values);
    const started = performance.now();
    try {
      return await (tracing.on ? inSqlSpan(sql.text, () => run(sql)) : run(sql));
    } finally {
      options.onQuery?.({ query: sql.text, durationMs: performance.now() - started });
    }
  };
  return new Proxy(prisma, {
    get(target, property, receiver) {
      if (property === '$queryRaw') return queryRaw;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
