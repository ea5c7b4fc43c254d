/**
 * `$queryRaw` answered by the `pg` pool itself, on PostgreSQL. Prisma's raw path costs more CPU
 * than the statement it sends: its driver adapter converts every value of every row, then the
 * client deserializes the result once more by type. The driver already returns what the callers
 * read: Date for timestamps, numbers for int4 (counts are cast `::int`), parsed jsonb, arrays.
 * Model calls and interactive transactions stay Prisma's; so does everything on PGlite, whose single
 * connection is shared with Prisma's transactions: a query from outside would run in the middle of one.
 */
import pg from 'pg';
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { logger } from '../logger';
import { inSqlSpan } from '../tracing/sql-spans';
import { tracing } from '../tracing/tracing';
import { preparedOwner, preparedStatementLost, StatementNames } from './prepared-statements';

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

/** `namedStatements`: false behind a transaction-mode pooler, where a prepared statement lives on one server connection. */
export function withDirectRawQueries(
  prisma: PrismaClient,
  pool: pg.Pool,
  options: { onQuery?: (event: { query: string; durationMs: number }) => void; namedStatements: boolean },
): PrismaClient {
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
        names.enabled = false;
        logger.warn(
          { code: (error as { code?: string }).code },
          'prepared statements turned off for this pool: the server did not keep them',
        );
      }
      return (await pool.query(sql.text, sql.values)).rows;
    }
  };
  const queryRaw = async (first: unknown, ...values: unknown[]): Promise<unknown[]> => {
    // A `Prisma.Sql`, or the strings of a tagged template.
    const sql = first instanceof Prisma.Sql ? first : Prisma.sql(first as TemplateStringsArray, ...values);
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
