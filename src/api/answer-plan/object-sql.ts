/**
 * The SQL that writes one object of a selection as JSON text: the answer's bytes for a report
 * (or a page's item), written by PostgreSQL in the statement that reads the row, members in the
 * order graphql-js collects them (`collectSubfields`).
 *
 * Each field's value comes from what the types declare (shared/schema/sql-source.ts): columns,
 * documents, relations joined by primary key (LEFT JOINs, the organization's own rows only, as the
 * loaders read them), expressions. A field without SQL (a nested page, a field with a resolver of
 * its own) leaves the selection to the typed path. Each value is json-sql.ts's: the typed path's
 * exact text, or NULL, which makes the whole object NULL (then answered the typed way, row by row).
 *
 * A report's documents are read from the texts the database keeps typed (typed-documents.ts), as
 * they are when selected whole, else selected from in the process (projection.ts). Typing them,
 * a document's objects are read once each (a LATERAL subquery per depth, OFFSET 0 so that
 * PostgreSQL keeps them apart), the column detoasted once.
 */
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLOutputType,
} from 'graphql';
import { Prisma } from '../../generated/prisma/client';
import type { WrittenSql } from '../../features/reports/reports.service';
import type { ColumnCatalog } from '../../platform/db/column-catalog';
import { sqlSourceOf, type SqlSource } from '../../shared/schema/sql-source';
import { selectionSets, selectionShape } from '../graphql/answer-size';
import { columnWriters, documentJsonList, documentWriters, quote, type ColumnWriter } from './json-sql';
import { projector, selectsWhole, type Projector } from './projection';
import { subfieldsOf, type SelectionScope } from './selection-scope';

/** Where the key's organization stands in a plan's text: a parameter, bound per request. */
export const ORGANIZATION = '\u0001organization\u0001';

export type { ColumnCatalog };

export interface SchemaFacts {
  schema: GraphQLSchema;
  columns: ColumnCatalog;
  /** `Type.field` of the fields with a resolver of their own (type-graphql's `@FieldResolver`s) */
  resolved: ReadonlySet<string>;
  /** what the database's typed documents must have been typed by to be used as they are (typed-documents.ts); absent: never */
  typedShape?: string;
}

/** Where the database keeps a document column's typed text (typed-documents.ts), and which functions typed it. */
export const typedColumnOf = (column: string) => `typed_${column}`;
export const TYPED_SHAPE_COLUMN = 'typed_shape';

/** One object written: its JSON text (NULL: the typed path writes it), an upper bound of the values the typed path counts for it, and what its text reads. */
export interface WrittenObject {
  json: string;
  /** an integer expression: at least what answer-size.ts would count for the object */
  bound: string;
  /** joins and LATERAL subqueries to add after the row's FROM item */
  from: string;
  /** the typed documents (a text expression: one after the other, DOCUMENT_SEPARATOR between them; NULL when none) whose parts `projectors` write where the text marks them (projectionMark) */
  documents: string;
  projectors: readonly Projector[];
  /** the statement's parts, the key's organization bound where the texts name it */
  sql(organizationId: string): WrittenSql;
}

const MARK_EDGE = '\u0001';

/**
 * Where the part of the typed document `index` stands in an object's text: control characters,
 * which no JSON text PostgreSQL writes holds unescaped.
 */
export const projectionMark = (index: number) => `${MARK_EDGE}${index}${MARK_EDGE}`;

/**
 * `json` with each projectionMark replaced by `fill(index)`. Joined from its parts, not rebuilt by
 * a regular expression's replace: the answer is then copied once, when it is written out.
 */
export function fillProjectionMarks(json: string, fill: (index: number) => string): string {
  let filled = '';
  let from = 0;
  for (let at = json.indexOf(MARK_EDGE); at >= 0; at = json.indexOf(MARK_EDGE, from)) {
    const end = json.indexOf(MARK_EDGE, at + 1);
    filled += json.slice(from, at) + fill(Number(json.slice(at + 1, end)));
    from = end + 1;
  }
  return from === 0 ? json : filled + json.slice(from);
}

/** Between two typed documents of a row (a text array would cost its parsing in the process). */
export const DOCUMENT_SEPARATOR = '\u0002';

/** The table a type's objects are rows of. */
type Table = Extract<SqlSource, { kind: 'table' }>;

const tableOf = (type: GraphQLObjectType): Table | undefined => {
  const source = sqlSourceOf(type);
  return source?.kind === 'table' ? source : undefined;
};

/** The column writer for a GraphQL type over a PostgreSQL type. */
function writerFor(type: GraphQLOutputType, pgType: string | undefined): ColumnWriter | undefined {
  const nullable = getNullableType(type);
  const named = getNamedType(type);
  if (isListType(nullable)) return isNonNullType(nullable.ofType) && named.name === 'String' && pgType === '_text' ? 'textList' : undefined;
  if (isEnumType(named)) return pgType === undefined || !pgType.startsWith('_') ? 'label' : undefined;
  const byScalar: Record<string, { writer: ColumnWriter; pgTypes: readonly string[] }> = {
    UUID: { writer: 'uuid', pgTypes: ['uuid'] },
    ID: { writer: 'uuid', pgTypes: ['uuid'] },
    String: { writer: 'text', pgTypes: ['text', 'varchar'] },
    Boolean: { writer: 'boolean', pgTypes: ['bool'] },
    Int: { writer: 'integer', pgTypes: ['int4', 'int2'] },
    DateTimeISO: { writer: 'timestamp', pgTypes: ['timestamptz'] },
    JSON: { writer: 'json', pgTypes: ['jsonb'] },
  };
  const known = byScalar[named.name];
  return known && (pgType === undefined || known.pgTypes.includes(pgType)) ? known.writer : undefined;
}

/** A text expression of parts: fixed texts (merged) and expressions, joined by `||` (a NULL part makes it NULL). */
class Text {
  private readonly parts: string[] = [];
  private pending = '';

  literal(text: string): this {
    this.pending += text;
    return this;
  }

  expression(sql: string): this {
    if (this.pending) this.parts.push(quote(this.pending));
    this.pending = '';
    this.parts.push(sql);
    return this;
  }

  toString(): string {
    const parts = this.pending ? [...this.parts, quote(this.pending)] : this.parts;
    return parts.length === 1 ? parts[0]! : `(${parts.join(' || ')})`;
  }
}

/** Field names an array would answer from its prototype (`keys`…): graphql-js's default resolver calls them on an array. */
const ARRAY_PROPERTIES = new Set(Object.getOwnPropertyNames(Array.prototype));
/** Object.prototype's names would be answered alike on any JSON value: a document field of such a name is not planned. */
const OBJECT_PROPERTIES = new Set(Object.getOwnPropertyNames(Object.prototype));

interface Value {
  json: string;
  /** dynamic parts of the bound (integer expressions) */
  bounds: string[];
}

/** Walks one selection and gathers the statement's joins and laterals. */
class ObjectWriter {
  private readonly joins: string[] = [];
  private readonly levels: string[][] = [];
  private names = 0;
  /** the typed documents the process selects part of: each one's text, and what writes the part */
  readonly projections: { text: string; project: Projector }[] = [];

  constructor(
    private readonly facts: SchemaFacts,
    /** the operation's selection scope (its schema is the facts') */
    private readonly scope: SelectionScope,
    /** rows that hold only some of their table's columns (a page's subquery) */
    private readonly rowColumns: ReadonlyMap<string, ReadonlySet<string>>,
  ) {}

  /** The PostgreSQL type of the row's column, or undefined when the row does not hold it. */
  private columnType(type: GraphQLObjectType, row: string, column: string): string | undefined {
    const table = this.tableOfRow(type);
    const held = this.rowColumns.get(row);
    if (!table || (held && !held.has(column))) return undefined;
    return this.facts.columns.get(table)?.get(column);
  }

  from(): string {
    const laterals = this.levels.map((columns, level) => `CROSS JOIN LATERAL (SELECT ${columns.join(', ')} OFFSET 0) l${level}`);
    return [...this.joins, ...laterals].join(' ');
  }

  /**
   * An object's text: its members in the selection's order (`__typename` written here), each value
   * the SQL `value` gives for its field; undefined when a field cannot be written (or none is selected).
   */
  private objectText(
    type: GraphQLObjectType,
    nodes: readonly FieldNode[],
    value: (field: GraphQLField<unknown, unknown>, fieldNodes: readonly FieldNode[]) => string | undefined,
  ): string | undefined {
    const text = new Text();
    let first = true;
    for (const [key, fieldNodes] of subfieldsOf(this.scope, type, nodes)) {
      const name = fieldNodes[0]!.name.value;
      text.literal(`${first ? '{' : ','}"${key}":`);
      first = false;
      if (name === '__typename') {
        text.literal(JSON.stringify(type.name));
        continue;
      }
      const field = type.getFields()[name];
      if (!field || fieldNodes.some((node) => node.arguments?.length)) return undefined;
      const sql = value(field, fieldNodes);
      if (sql === undefined) return undefined;
      text.expression(sql);
    }
    if (first) return undefined;
    return text.literal('}').toString();
  }

  /** A value read once per row, at `level` (it may read the values of lower levels). */
  lateral(level: number, sql: string): string {
    const name = `v${this.names++}`;
    (this.levels[level] ??= []).push(`${sql} AS ${name}`);
    return `l${level}.${name}`;
  }

  /** An object of the row `row` (its table's columns, or a document, relation or expression its fields declare). */
  rowObject(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[]): Value | undefined {
    const bounds: string[] = [];
    const json = this.objectText(type, nodes, (field, fieldNodes) => {
      const value = this.rowField(type, field, row, fieldNodes);
      if (value) bounds.push(...value.bounds);
      return value?.json;
    });
    return json === undefined ? undefined : { json, bounds };
  }

  private rowField(
    type: GraphQLObjectType,
    field: GraphQLField<unknown, unknown>,
    row: string,
    nodes: readonly FieldNode[],
  ): Value | undefined {
    const declared = sqlSourceOf(field);
    if (!declared && this.facts.resolved.has(`${type.name}.${field.name}`)) return undefined;
    const source: SqlSource = declared ?? { kind: 'column', column: field.name };
    const nullable = !isNonNullType(field.type);
    // An object (not a list of them): what a same-row, document or joined field must hold.
    const named = getNamedType(field.type);
    const object = isObjectType(named) && !isListType(getNullableType(field.type)) ? named : undefined;
    switch (source.kind) {
      case 'column': {
        const pgType = this.columnType(type, row, source.column);
        if (!pgType) return undefined;
        const writer = writerFor(field.type, pgType);
        if (!writer) return undefined;
        const column = `${row}.${source.column}`;
        // A JSON value holds at most a value per character of its text; a list counts its items.
        const bounds =
          writer === 'json'
            ? [`COALESCE(length(${column}::text), 1)`]
            : writer === 'textList'
              ? [`(COALESCE(cardinality(${column}), 0) + 1)`]
              : [];
        return { json: columnWriters[writer](column, nullable), bounds };
      }
      case 'expression': {
        const writer = writerFor(field.type, undefined);
        if (!writer || writer === 'json' || writer === 'textList') return undefined;
        return { json: columnWriters[writer](`(${source.sql(row)})`, nullable), bounds: [] };
      }
      case 'same-row': {
        const table = this.tableOfRow(type);
        if (!object || !table) return undefined;
        this.rowTables.set(object, table);
        return this.rowObject(object, row, nodes);
      }
      case 'document': {
        // Read from the text the database keeps typed beside the document (typed-documents.ts),
        // when the functions of this schema typed it (else the row goes to the typed path).
        const typed = typedColumnOf(source.column);
        if (
          !object ||
          !this.facts.typedShape ||
          this.columnType(type, row, source.column) !== 'jsonb' ||
          this.columnType(type, row, typed) !== 'text'
        )
          return undefined;
        const text = `(CASE WHEN ${row}.${TYPED_SHAPE_COLUMN} = ${quote(this.facts.typedShape)} THEN ${row}.${typed} END)`;
        const shape = selectionShape(this.scope, selectionSets(nodes), object);
        // Its values, at most one per character of its text, as often as the selection repeats them.
        const bounds = [`(COALESCE(octet_length(${row}.${typed}), 0) * ${shape.repetitions} + ${shape.fields})`];
        // Selected whole, it is the answer's text; in part, the process selects from it (projection.ts).
        if (selectsWhole(this.scope, object, nodes)) return { json: text, bounds };
        const index = this.projections.length;
        this.projections.push({ text, project: projector(this.scope, object, nodes) });
        return { json: `(CASE WHEN ${text} IS NOT NULL THEN ${quote(projectionMark(index))} END)`, bounds };
      }
      case 'join':
        return object && this.joined(type, object, row, source.column, nodes, nullable);
      default:
        return undefined;
    }
  }

  /** The table whose row `type`'s object is (its own declaration, or the row it is part of). */
  private rowTables = new Map<GraphQLObjectType, string>();

  private tableOfRow(type: GraphQLObjectType): string | undefined {
    return tableOf(type)?.table ?? this.rowTables.get(type);
  }

  private joined(
    parent: GraphQLObjectType,
    type: GraphQLObjectType,
    row: string,
    column: string,
    nodes: readonly FieldNode[],
    nullable: boolean,
  ): Value | undefined {
    const target = tableOf(type);
    if (!target || this.columnType(parent, row, column) !== 'uuid') return undefined;
    const alias = `j${this.joins.length}`;
    this.joins.push(
      `LEFT JOIN ${target.table} ${alias} ON ${alias}.${target.key} = ${row}.${column} AND ${alias}.${target.organization} = ${ORGANIZATION}::uuid`,
    );
    const object = this.rowObject(type, alias, nodes);
    if (!object) return undefined;
    // No row: null, as the loader answers; for a non-null field, the typed path's error.
    return { ...object, json: `(CASE WHEN ${alias}.${target.key} IS NULL THEN ${nullable ? "'null'" : 'NULL'} ELSE ${object.json} END)` };
  }

  /**
   * An object of a document at jsonb `v`: null when missing or null; an object of nulls when
   * `v` is another JSON type (graphql-js reads no property of a string, a number or an array).
   * `level` places its objects' values in laterals; 0 writes them inline (inside a list's items).
   */
  documentObject(type: GraphQLObjectType, v: string, nodes: readonly FieldNode[], nullable: boolean, level: number): string | undefined {
    const text = this.objectText(type, nodes, (field, fieldNodes) => {
      const { name } = field;
      if (OBJECT_PROPERTIES.has(name)) return undefined;
      const value = this.documentValue(field.type, `${v}->${quote(name)}`, fieldNodes, level);
      if (!value) return undefined;
      // An array answers such a name from its prototype (a function graphql-js calls): the typed path's.
      return ARRAY_PROPERTIES.has(name) ? `(CASE WHEN jsonb_typeof(${v}) = 'array' THEN NULL ELSE ${value} END)` : value;
    });
    if (text === undefined) return undefined;
    return `(CASE WHEN ${v} IS NULL OR jsonb_typeof(${v}) = 'null' THEN ${nullable ? "'null'" : 'NULL'} ELSE ${text} END)`;
  }

  private documentValue(type: GraphQLOutputType, v: string, nodes: readonly FieldNode[], level: number): string | undefined {
    if (isNonNullType(type)) return undefined;
    if (isListType(type)) {
      const item = type.ofType;
      if (isNonNullType(item)) return undefined;
      if (isScalarType(item) && item.name === 'JSON') return documentJsonList(v);
      const itemText = isObjectType(item) ? this.documentObject(item, 'e', nodes, true, 0) : leafText(item, 'e');
      if (!itemText) return undefined;
      // Every item written, or none: a NULL item (the typed path's) makes the list NULL.
      const items = `(SELECT CASE WHEN count(*) = count(w) THEN '[' || COALESCE(string_agg(w, ',' ORDER BY o), '') || ']' END FROM (SELECT ${itemText} AS w, o FROM jsonb_array_elements(${v}) WITH ORDINALITY AS a(e, o)) i)`;
      return `(CASE jsonb_typeof(${v}) WHEN 'array' THEN ${items} WHEN 'null' THEN 'null' ELSE (CASE WHEN ${v} IS NULL THEN 'null' END) END)`;
    }
    if (!isObjectType(type)) return leafText(type, v);
    const value = level > 0 ? this.lateral(level, v) : v;
    return this.documentObject(type, value, nodes, true, level > 0 ? level + 1 : 0);
  }
}

/** A document leaf's text, for the scalars PostgreSQL writes (json-sql.ts). */
const leafText = (type: GraphQLOutputType, v: string) =>
  isScalarType(type) && type.name in documentWriters ? documentWriters[type.name as keyof typeof documentWriters](v) : undefined;

/**
 * The SQL writing a whole document of `type` from the jsonb `document` (every field, in order: the
 * typed text the database keeps, typed-documents.ts), as a SELECT statement.
 */
export function wholeDocumentSql(
  facts: SchemaFacts,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  nullable: boolean,
  document: string,
): string {
  const writer = new ObjectWriter(facts, { schema: facts.schema, fragments: {}, variables: {} }, new Map());
  const json = writer.documentObject(type, writer.lateral(0, `${document} #> '{}'`), nodes, nullable, 1);
  if (!json) throw new Error(`the document type ${type.name} has a field PostgreSQL cannot write`);
  return `SELECT ${json} FROM (SELECT 1) s ${writer.from()}`;
}

/**
 * The SQL writing `type`'s object from the row `row` for the selection of `nodes` (a field's
 * nodes, merged), or undefined when the selection holds something PostgreSQL does not write.
 */
export function writtenObject(
  facts: SchemaFacts,
  scope: SelectionScope,
  type: GraphQLObjectType,
  row: string,
  nodes: readonly FieldNode[],
  /** the columns the row holds, when not all of its table's */
  rowColumns?: ReadonlySet<string>,
): WrittenObject | undefined {
  const writer = new ObjectWriter(facts, scope, new Map(rowColumns ? [[row, rowColumns]] : []));
  const object = writer.rowObject(type, row, nodes);
  if (!object) return undefined;
  const shape = selectionShape(scope, selectionSets(nodes), type);
  const { projections } = writer;
  const texts = {
    json: object.json,
    bound: [String(shape.fields), ...object.bounds].join(' + '),
    from: writer.from(),
    documents:
      projections.length > 0
        ? // A relation that is not there has no documents: empty (its object is written `null`, no mark)
          projections.map((p) => `COALESCE(${p.text}, '')`).join(` || ${quote(DOCUMENT_SEPARATOR)} || `)
        : 'NULL::text',
  };
  const split = Object.entries(texts).map(([part, text]) => [part, text.split(ORGANIZATION)] as const);
  const sql = (organizationId: string) =>
    Object.fromEntries(
      split.map(([part, strings]) => [part, new Prisma.Sql(strings, strings.slice(1).fill(organizationId))]),
    ) as unknown as WrittenSql;
  return { ...texts, projectors: projections.map((p) => p.project), sql };
}
