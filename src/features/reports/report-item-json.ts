/**
 * A page's items written as JSON text by PostgreSQL, in the statement that reads them: Node then
 * neither decodes their columns nor serializes their values. Measured (bench/HISTORY.md,
 * 2026-11-28, 19:19-20:40): the REST page and the GraphQL page of the benchmark cost the server
 * 0.69-0.85x the CPU they did; the statement costs PostgreSQL up to ~0.6 ms more for 100 items
 * (to_json and to_char are most of it), about what the relations read apart cost it before. A
 * trade PostGraphile, which has PostgreSQL write its whole answer, makes further.
 *
 * The text must be, byte for byte, what the typed path writes for the same selection: graphql-jit
 * completing each field, then `JSON.stringify`. So only fields whose JSON PostgreSQL writes the
 * same way are known here, each with the expression that writes it:
 *  - UUIDs: PostgreSQL's text (lower-case hex), as pg hands it to the UUID scalar;
 *  - text: `to_json(text)`, which escapes exactly what `JSON.stringify` escapes (`"`, `\`, the
 *    controls below U+0020, with the same short forms and lower-case `\u00XX`; nothing else);
 *  - booleans, integers, enums (their labels are the GraphQL enum's values: both come from the
 *    Prisma schema);
 *  - timestamps (`timestamptz(3)`): the UTC text `toISOString` writes, for years 0100 to 9999; any
 *    other (infinity, BC, year 10000+) makes the item's text NULL, and the page is read again the
 *    typed way (listReports);
 *  - the dealership and the profile: joined by primary key, the organization's own only, as their
 *    loaders read them.
 * A field not known here (another relation, `__typename`, a JSON value, a list) means the
 * selection is not written by PostgreSQL at all: `reportItemJsonSql` returns undefined.
 * test/rest/written-items.test.ts compares both paths on generated rows and selections.
 */
import { Prisma } from '../../generated/prisma/client';

const sql = Prisma.sql;

/** What an item selects, as plain data: response keys in the answer's order, each with its field and what it selects below. */
export interface WrittenField {
  key: string;
  field: string;
  select?: readonly WrittenField[];
}

/** A JSON member name that needs no escaping: a GraphQL name (aliases included) always is one. */
const PLAIN_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A piece of an item's text: fixed text, or an SQL expression whose value is the text (never NULL). */
type Part = { literal: string } | { expression: string };

/** What a field's writer adds: its parts, and the condition under which they are the typed path's text. */
interface Written {
  parts: Part[];
  guard?: string;
}

type Writer = (column: string) => Written;

const literal = (text: string): Part => ({ literal: text });
const expression = (text: string): Part => ({ expression: text });
const one = (text: string): Written => ({ parts: [expression(text)] });

const uuid: Writer = (c) => ({ parts: [literal('"'), expression(`${c}::text`), literal('"')] });
const nullableUuid: Writer = (c) => one(`COALESCE('"' || ${c}::text || '"', 'null')`);
const text: Writer = (c) => one(`COALESCE(to_json(${c})::text, 'null')`);
const boolean: Writer = (c) => one(`CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false' ELSE 'null' END`);
const integer: Writer = (c) => one(`COALESCE(${c}::text, 'null')`);
const label: Writer = (c) => one(`COALESCE('"' || ${c}::text || '"', 'null')`);
/** Written for the years toISOString writes with four digits only: any other (infinity, BC, 10000+) leaves the item unwritten. */
const timestamp: Writer = (c) => ({
  parts: [
    expression(
      `CASE WHEN ${c} IS NULL THEN 'null' ELSE '"' || to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' END`,
    ),
  ],
  guard: `(${c} IS NULL OR (${c} >= '0100-01-01T00:00:00Z' AND ${c} < '10000-01-01T00:00:00Z'))`,
});

/**
 * One text expression of the parts, adjacent fixed texts merged. With `||`, a NULL anywhere (a
 * NOT NULL column that was not) makes the whole item NULL: then it is not written, never wrong.
 * (`concat` would skip it; it measured no faster.)
 */
function concatenation(parts: readonly Part[]): string {
  const merged: string[] = [];
  let pending = '';
  for (const part of parts) {
    if ('literal' in part) pending += part.literal;
    else {
      if (pending) merged.push(`'${pending.replaceAll("'", "''")}'`);
      pending = '';
      merged.push(part.expression);
    }
  }
  if (pending) merged.push(`'${pending.replaceAll("'", "''")}'`);
  return `(${merged.join(' || ')})`;
}

interface ObjectWriter {
  /** each known field: its writer and the column it reads, or the object it holds */
  fields: Record<string, ColumnField | ObjectField>;
}

interface ColumnField {
  write: Writer;
  column: string;
}

interface ObjectField {
  object: ObjectWriter;
  /** a relation: the row joined to the page's under `alias` (at most one: by primary key); absent: made of the same row's columns */
  relation?: { alias: string; join: (row: string, organizationId: string) => Prisma.Sql };
}

/** Fields that are their own row's column of the same name, each with its writer. */
const columnsNamed = (writers: Record<string, Writer>): Record<string, ColumnField> =>
  Object.fromEntries(Object.entries(writers).map(([field, write]) => [field, { write, column: field }]));

const USER: ObjectWriter = {
  fields: columnsNamed({
    id: uuid,
    name: text,
    is_active: boolean,
    created_at: timestamp,
    organization_id: uuid,
    entity_id: uuid,
    dealership_id: nullableUuid,
    created_by: text,
    role: text,
    photo: text,
    phone: text,
    position: text,
    email: text,
    last_activity: timestamp,
  }),
};

const DEALERSHIP: ObjectWriter = {
  fields: columnsNamed({
    id: uuid,
    name: text,
    created_at: timestamp,
    updated_at: timestamp,
    organization_id: uuid,
    entity_id: uuid,
    logo: text,
    illustration_img: text,
    more_info: text,
    siret: text,
    position: integer,
    headquarter: boolean,
  }),
};

const COMPACT_VEHICLE: ObjectWriter = { fields: columnsNamed({ vin: text, license_number: text }) };

/** The compact report's `data`: made of the row's own columns. */
const COMPACT_DATA: ObjectWriter = { fields: { vehicle: { object: COMPACT_VEHICLE } } };

const COMPACT_REPORT: ObjectWriter = {
  fields: {
    ...columnsNamed({
      token: uuid,
      created_at: timestamp,
      updated_at: timestamp,
      organization_id: uuid,
      dealership_id: nullableUuid,
      entity_id: uuid,
      profile_id: nullableUuid,
      contact_id: nullableUuid,
      counter_id: nullableUuid,
      type: label,
      valid: boolean,
    }),
    // The GraphQL-only `id` is the token (the identifier client caches normalize on).
    id: { write: uuid, column: 'token' },
    data: { object: COMPACT_DATA },
    // The organization's own dealership and user only, as their loaders read them
    // (dealerships.service.ts, users.service.ts findUsers): another's is null.
    dealership: {
      object: DEALERSHIP,
      relation: {
        alias: 'd',
        join: (row, organizationId) =>
          sql`LEFT JOIN dealerships d ON d.organization_id = ${organizationId}::uuid AND d.id = ${Prisma.raw(row)}.dealership_id`,
      },
    },
    profile: {
      object: USER,
      relation: {
        alias: 'u',
        join: (row, organizationId) =>
          sql`LEFT JOIN users u ON u.organization_id = ${organizationId}::uuid AND u.id = ${Prisma.raw(row)}.profile_id`,
      },
    },
  },
};

/** An item's JSON text and the joins it reads (each relation joined once, however often it is selected). */
interface ItemJson {
  text: Prisma.Sql;
  joins: Map<string, Prisma.Sql>;
}

/** What writing an item gathers on the way: its relations' joins, and its values' conditions. */
interface Gathered {
  joins: Map<string, Prisma.Sql>;
  guards: Set<string>;
  organizationId: string;
}

/**
 * The parts of one object's JSON text from the row `row`, or undefined when a field is not known.
 * A relation's object is read from its joined row (a subquery per row cost PostgreSQL ~11 µs a
 * row, the join ~3); no such row writes `null`.
 */
function objectParts(writer: ObjectWriter, select: readonly WrittenField[], row: string, gathered: Gathered): Part[] | undefined {
  if (select.length === 0) return undefined;
  const parts: Part[] = [];
  for (const [index, selected] of select.entries()) {
    const known = writer.fields[selected.field];
    if (!known || !PLAIN_NAME.test(selected.key)) return undefined;
    parts.push(literal(`${index === 0 ? '{' : ','}"${selected.key}":`));
    if ('write' in known) {
      if (selected.select) return undefined;
      const written = known.write(`${row}.${known.column}`);
      parts.push(...written.parts);
      if (written.guard) gathered.guards.add(written.guard);
      continue;
    }
    if (!selected.select) return undefined;
    const relation = known.relation;
    const object = objectParts(known.object, selected.select, relation ? relation.alias : row, gathered);
    if (!object) return undefined;
    if (!relation) {
      parts.push(...object);
      continue;
    }
    if (!gathered.joins.has(relation.alias)) gathered.joins.set(relation.alias, relation.join(row, gathered.organizationId));
    parts.push(expression(`CASE WHEN ${relation.alias}.id IS NULL THEN 'null' ELSE ${concatenation(object)} END`));
  }
  parts.push(literal('}'));
  return parts;
}

/**
 * The expression writing a compact report's JSON text from the page's row `p` (NULL where a value
 * is one PostgreSQL does not write as the typed path does), and the joins it reads; undefined when
 * the selection holds a field PostgreSQL does not write here.
 */
export function reportItemJsonSql(select: readonly WrittenField[], organizationId: string): ItemJson | undefined {
  const gathered: Gathered = { joins: new Map(), guards: new Set(), organizationId };
  const parts = objectParts(COMPACT_REPORT, select, 'p', gathered);
  if (!parts) return undefined;
  const text = concatenation(parts);
  const guards = [...gathered.guards];
  return { text: Prisma.raw(guards.length > 0 ? `(CASE WHEN ${guards.join(' AND ')} THEN ${text} END)` : text), joins: gathered.joins };
}

/** Whether PostgreSQL writes every field of this selection of a compact report. */
export function writesReportItems(select: readonly WrittenField[]): boolean {
  return reportItemJsonSql(select, '00000000-0000-0000-0000-000000000000') !== undefined;
}

/** The compact columns an item's JSON reads from the page's row. */
export function reportItemColumns(select: readonly WrittenField[]): string[] {
  const columns = new Set<string>();
  const walk = (writer: ObjectWriter, fields: readonly WrittenField[]) => {
    for (const selected of fields) {
      const known = writer.fields[selected.field];
      if (!known) continue;
      if ('write' in known) {
        columns.add(known.column);
      } else if (selected.select) {
        if (known.relation) columns.add(`${selected.field}_id`);
        else walk(known.object, selected.select);
      }
    }
  };
  walk(COMPACT_REPORT, select);
  return [...columns];
}
