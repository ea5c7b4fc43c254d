/**
 * Where a type's objects and its fields come from in SQL, declared beside them (type-graphql's
 * `@Extensions`), so that the answer planner (api/answer-plan) writes their JSON in PostgreSQL
 * from the GraphQL types alone: a new field needs one declaration, its `@Field`.
 *
 * - A type whose objects are rows of a table says so once: `@SqlTable('dealerships')`. Its plain
 *   fields are then the columns of the same name; nothing more is declared for them.
 * - A field that is not its own column declares what it is: another column (`@SqlColumn`), an
 *   object made of the same row (`@SqlSameRow`), a JSON document read by key (`@SqlDocument`), the
 *   organization's row of another table that a column names (`@SqlJoin`), or an expression over
 *   the row (`@SqlExpression`).
 * - A field with a resolver of its own and none of these (a nested page, masked notifications) is
 *   not written by PostgreSQL: a selection holding it is answered by the typed path.
 * The types inside a document (`data`, `state`, `real_costs`) declare nothing: their fields are
 * the document's keys of the same name.
 */
import { Extensions } from 'type-graphql';

export const SQL_SOURCE_EXTENSION = 'sqlSource';

export type SqlSource =
  /** (on a type) its objects are rows of `table`, found by `key` within the organization named by `organization` */
  | { kind: 'table'; table: string; key: string; organization: string }
  /** the row's column `column` */
  | { kind: 'column'; column: string }
  /** an object made of the same row's columns */
  | { kind: 'same-row' }
  /** the row's jsonb column `column`, whose object type's fields are its keys */
  | { kind: 'document'; column: string }
  /** the organization's row of the field's type whose key is the row's column `column` */
  | { kind: 'join'; column: string }
  /** an SQL expression of the field's value over the row `row` */
  | { kind: 'expression'; sql: (row: string) => string };

const declare = (source: SqlSource) => Extensions({ [SQL_SOURCE_EXTENSION]: source });

export const SqlTable = (table: string, options: { key?: string; organization?: string } = {}) =>
  declare({ kind: 'table', table, key: options.key ?? 'id', organization: options.organization ?? 'organization_id' });
export const SqlColumn = (column: string) => declare({ kind: 'column', column });
export const SqlSameRow = () => declare({ kind: 'same-row' });
export const SqlDocument = (column: string) => declare({ kind: 'document', column });
export const SqlJoin = (column: string) => declare({ kind: 'join', column });
export const SqlExpression = (sql: (row: string) => string) => declare({ kind: 'expression', sql });

export function sqlSourceOf(holder: { extensions?: Readonly<Record<string, unknown>> | null }): SqlSource | undefined {
  return holder.extensions?.[SQL_SOURCE_EXTENSION] as SqlSource | undefined;
}
