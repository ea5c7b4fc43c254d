/**
 * A client span per SQL statement, child of the request's span, made only when that span records.
 * Hooked where statements leave the process: the Prisma driver adapter (model calls and
 * transactions, PostgreSQL and PGlite alike) and the direct raw-query path (direct-raw-queries.ts).
 * The text is normalized: parameters are sent apart (`$1`…) and never read, and literals written
 * into the text are replaced by `?`, so no value reaches a span.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import { failed, recordingSpan, tracer } from './tracing';

/** Longest statement text kept (an answer plan's statement is tens of kB). */
export const MAX_SQL_TEXT = 2_048;
/** Longest part of a statement normalized: what a span can keep comes from its beginning. */
const MAX_SQL_SOURCE = 4 * MAX_SQL_TEXT;

/** The statement with its literals replaced by `?` and its whitespace collapsed, at most MAX_SQL_TEXT long. */
export function normalizedSql(text: string): string {
  const head = text.length > MAX_SQL_SOURCE ? text.slice(0, MAX_SQL_SOURCE) : text;
  let normalized = head
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/\$([A-Za-z_]\w*)?\$[\s\S]*?\$\1\$/g, '?')
    .replace(/(?<![\w$."])-?\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '?')
    .replace(/\s+/g, ' ')
    .trim();
  // A literal the head cut is still open: nothing of it is kept.
  const open = head === text ? -1 : normalized.search(/'|\$(?:[A-Za-z_]\w*)?\$/);
  if (open >= 0) normalized = `${normalized.slice(0, open)}?`;
  return normalized.length > MAX_SQL_TEXT || head !== text ? `${normalized.slice(0, MAX_SQL_TEXT)}…` : normalized;
}

/** The statement's first word, upper case (`SELECT`, `WITH`, `BEGIN`…), or '' when it has none. */
export const sqlVerb = (text: string) => (/^[\s(]*([A-Za-z]+)/.exec(text)?.[1] ?? '').toUpperCase();

/** `SELECT reports`, `INSERT notification_outbox`, `BEGIN`…: the verb and the first table named. */
export function sqlSpanName(text: string): string {
  const verb = sqlVerb(text) || 'SQL';
  const table = /\b(?:FROM|INTO|UPDATE|JOIN)\s+(?:"?public"?\.)?"?([A-Za-z_][\w]*)"?/i.exec(text)?.[1];
  return table ? `${verb} ${table}` : verb;
}

interface StatementDescription {
  name: string;
  attributes: Attributes;
}

/**
 * What a span says of each statement text, worked out once per text: the texts are few (Prisma's,
 * the code's, one per answer plan) and sent again and again, while normalizing an answer plan's
 * statement costs more than the rest of its span. Bounded in characters and in count (the oldest
 * goes first); a tenant who churns it (many distinct documents) only makes the next spans work
 * their descriptions out again. Never values: parameters are not part of a text.
 */
export const DESCRIPTIONS_MAX_ENTRIES = 512;
export const DESCRIPTIONS_MAX_CHARS = 2_000_000;
const descriptions = new Map<string, StatementDescription>();
let descriptionChars = 0;

const charsOf = (text: string, description: StatementDescription) => text.length + String(description.attributes['db.query.text']).length;

/** The span name and attributes of a statement text (the same object for the same text while held). */
export function describedStatement(text: string): StatementDescription {
  const known = descriptions.get(text);
  if (known) return known;
  const description = {
    name: sqlSpanName(text),
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': sqlVerb(text),
      'db.query.text': normalizedSql(text),
    },
  };
  descriptions.set(text, description);
  descriptionChars += charsOf(text, description);
  for (const [oldest, described] of descriptions) {
    if (descriptions.size <= DESCRIPTIONS_MAX_ENTRIES && descriptionChars <= DESCRIPTIONS_MAX_CHARS) break;
    descriptions.delete(oldest);
    descriptionChars -= charsOf(oldest, described);
  }
  return description;
}

/** How many descriptions are held, and their texts' characters (for the bound's test). */
export function describedStatementsHeld(): { entries: number; chars: number } {
  return { entries: descriptions.size, chars: descriptionChars };
}

/** Runs one statement in its span when the active span records; else runs it as it is. */
export function inSqlSpan<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!recordingSpan()) return run();
  const { name, attributes } = describedStatement(text);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
  return run().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      failed(span, error);
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
      span.end();
      throw error;
    },
  );
}

/**
 * Prisma's driver adapter (or one of its transactions) with `queryRaw`, `executeRaw` and the
 * transactions it starts traced; each method wrapped once, not at every access.
 */
function tracedQueryable<Q extends object>(queryable: Q): Q {
  const made = new Map<string | symbol, unknown>();
  return new Proxy(queryable, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      let wrapped = made.get(property);
      if (wrapped === undefined) {
        const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
        if (property === 'queryRaw' || property === 'executeRaw') {
          wrapped = (query: { sql: string }) => inSqlSpan(query.sql, () => method(query));
        } else if (property === 'startTransaction') {
          wrapped = async (...args: unknown[]) => tracedQueryable((await method(...args)) as object);
        } else wrapped = method;
        made.set(property, wrapped);
      }
      return wrapped;
    },
  });
}

/** Prisma's driver adapter factory with a span per statement (its transactions' statements included). */
export function tracedAdapterFactory<F extends object>(factory: F): F {
  return new Proxy(factory, {
    get(target, property, receiver) {
      if (property !== 'connect') return Reflect.get(target, property, receiver) as unknown;
      return async () => tracedQueryable(await (target as unknown as { connect(): Promise<object> }).connect());
    },
  });
}
