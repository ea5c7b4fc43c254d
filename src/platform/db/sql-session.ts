/**
 * A single database session (one connection), for work that Prisma's pooled client cannot do:
 * multi-statement migration scripts and session-level advisory locks.
 */
export interface SqlSession {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements (no parameters). */
  exec(script: string): Promise<void>;
}
