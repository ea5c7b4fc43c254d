/**
 * Statements PostgreSQL keeps prepared on each connection. A statement sent unnamed is parsed,
 * analysed and planned on every execution; a named one is parsed once per connection, and after
 * five executions PostgreSQL may keep one generic plan for it (a fifth to a quarter less of
 * PostgreSQL's CPU per request, measured).
 *
 * A generic plan is made without the parameters' values, so only statements whose best plan does
 * not depend on them are marked (`prepared`): lookups by primary key or by ids, and a page or count
 * whose only conditions are the organization, `valid` and a cursor (each served by one index
 * whatever the values). A filter whose selectivity depends on its value (a type, a date range, a
 * search) stays unnamed and is planned with its values.
 *
 * Bounded: each named text costs memory on every connection of the pool (40–90 KB in the backend
 * for a page's statement). A page's text varies with what its request asks (`order_by`, the
 * selected columns), so a page is marked with its organization, and each organization may name at
 * most NAMES_PER_OWNER of them: one tenant takes a quarter of the names, not the others' share; the
 * code's fixed texts have their own bound. Texts past a bound run unnamed, which costs only speed.
 */
import { createHash } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';

/** A marked statement's owner: the organization whose request shaped its text, or `code` for a fixed text. */
export type StatementOwner = string;
const FIXED_TEXT: StatementOwner = 'code';
const PREPARED = new WeakMap<Prisma.Sql, StatementOwner>();

/**
 * Marks a statement as one PostgreSQL may keep prepared (see above for which qualify). `owner`:
 * the organization, when the request chose the text's shape; absent for a text fixed in the code.
 */
export function prepared(statement: Prisma.Sql, owner: StatementOwner = FIXED_TEXT): Prisma.Sql {
  PREPARED.set(statement, owner);
  return statement;
}

/** The marked statement's owner, or undefined when it is not marked (it runs unnamed). */
export function preparedOwner(statement: Prisma.Sql): StatementOwner | undefined {
  return PREPARED.get(statement);
}

/** Distinct texts of requests' shapes (the pages' orders and column sets) named per pool. */
export const STATEMENT_NAMES_CAPACITY = 32;
/** Of those, how many one organization's requests may introduce. */
export const NAMES_PER_OWNER = 8;
/** Texts fixed in the code named per pool (a handful today), apart: requests cannot crowd them out. */
export const FIXED_TEXT_NAMES_CAPACITY = 16;

/**
 * A text's name is its digest, the same in every process: where server connections are shared
 * (a pooler), a name another process prepared there is the very same statement, never another.
 */
export const statementNameOf = (text: string) => `vr_${createHash('sha256').update(text).digest('base64url').slice(0, 27)}`;

/** The name each marked text is prepared under on this pool's connections. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** how many names each owner introduced (only those that did: at most the capacities) */
  private readonly introduced = new Map<StatementOwner, number>();
  /** names introduced by organizations' requests, all together */
  private requestShaped = 0;

  /** `enabled`: turned off for good once the server did not keep a name (see `preparedStatementLost`). */
  constructor(public enabled: boolean) {}

  /** The text's name, or undefined when it runs unnamed (naming off, the names all taken, or the owner's). */
  nameOf(text: string, owner: StatementOwner = FIXED_TEXT): string | undefined {
    if (!this.enabled) return undefined;
    const named = this.names.get(text);
    if (named !== undefined) return named;
    const count = this.introduced.get(owner) ?? 0;
    if (
      owner === FIXED_TEXT ? count >= FIXED_TEXT_NAMES_CAPACITY : count >= NAMES_PER_OWNER || this.requestShaped >= STATEMENT_NAMES_CAPACITY
    ) {
      return undefined;
    }
    if (owner !== FIXED_TEXT) this.requestShaped += 1;
    this.introduced.set(owner, count + 1);
    const name = statementNameOf(text);
    this.names.set(text, name);
    return name;
  }
}

/**
 * Whether PostgreSQL refused a named statement because the connection does not hold it as
 * prepared: a transaction-mode pooler (PgBouncer without `?pgbouncer=true`) gave the next
 * statement another server connection (26000, 42P05), or a migration changed a table under a
 * kept plan (0A000 "cached plan must not change result type"). Nothing ran: the statement can be
 * sent again unnamed.
 */
export function preparedStatementLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '26000' || code === '42P05') return true;
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}
