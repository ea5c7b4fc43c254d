/**
 * A page's items written as JSON text by PostgreSQL, in the statement that reads them: Node then
 * neither decodes their columns nor serializes their values (a REST page of 100 cost 0.8-1.2 ms
 * less CPU this way, measured on bare express and pg: bench/HISTORY.md, 2026-11-28, 19:45).
 *
 * The text must be, byte for byte, what the typed path writes for the same selection: graphql-jit
 * completing each field, then `JSON.stringify`. So only fields whose JSON PostgreSQL writes the
 * same way are known here, each with the expression that writes it:
 *  - UUIDs: PostgreSQL's text (lower-case hex), as pg hands it to the UUID scalar;
 *  - text: `to_json(text)`, which escapes exactly what `JSON.stringify` escapes (`"`, `\`, the
 *    controls below U+0020, with the same short forms and lower-case `\u00XX`; nothing else);
 *  - booleans, enums (their labels are the GraphQL enum's values: both come from the Prisma schema);
 *  - timestamps (`timestamptz(3)`): the UTC text `toISOString` writes, for years 0100 to 9999; any
 *    other (infinity, BC, year 10000+) makes the item's text NULL, and the page is read again the
 *    typed way (listReports).
 * A field not known here (another relation, `__typename`, a JSON value) means the selection is
 * not written by PostgreSQL at all: `reportItemJsonSql` returns undefined.
 * test/rest/written-items.test.ts compares both paths on generated rows.
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

type Writer = (column: string) => string;

const uuid: Writer = (c) => `'"' || ${c}::text || '"'`;
const nullableUuid: Writer = (c) => `COALESCE('"' || ${c}::text || '"', 'null')`;
const text: Writer = (c) => `COALESCE(to_json(${c})::text, 'null')`;
const boolean: Writer = (c) => `CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false' ELSE 'null' END`;
const integer: Writer = (c) => `COALESCE(${c}::text, 'null')`;
const label: Writer = (c) => `COALESCE('"' || ${c}::text || '"', 'null')`;
/** NULL (not `null`) outside the years toISOString writes with four digits: the item is then not written. */
const timestamp: Writer = (c) =>
  `CASE WHEN ${c} IS NULL THEN 'null' WHEN ${c} >= '0100-01-01T00:00:00Z' AND ${c} < '10000-01-01T00:00:00Z' ` +
  `THEN '"' || to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' END`;

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
  /** a relation: the row it reads (`FROM … WHERE …`) under `alias`; absent: made of the same row's columns */
  relation?: { alias: string; from: (row: string, organizationId: string) => Prisma.Sql };
}

const USER: ObjectWriter = {
  fields: {
    id: { write: uuid, column: 'id' },
    name: { write: text, column: 'name' },
    is_active: { write: boolean, column: 'is_active' },
    created_at: { write: timestamp, column: 'created_at' },
    organization_id: { write: uuid, column: 'organization_id' },
    entity_id: { write: uuid, column: 'entity_id' },
    dealership_id: { write: nullableUuid, column: 'dealership_id' },
    created_by: { write: text, column: 'created_by' },
    role: { write: text, column: 'role' },
    photo: { write: text, column: 'photo' },
    phone: { write: text, column: 'phone' },
    position: { write: text, column: 'position' },
    email: { write: text, column: 'email' },
    last_activity: { write: timestamp, column: 'last_activity' },
  },
};

const DEALERSHIP: ObjectWriter = {
  fields: {
    id: { write: uuid, column: 'id' },
    name: { write: text, column: 'name' },
    created_at: { write: timestamp, column: 'created_at' },
    updated_at: { write: timestamp, column: 'updated_at' },
    organization_id: { write: uuid, column: 'organization_id' },
    entity_id: { write: uuid, column: 'entity_id' },
    logo: { write: text, column: 'logo' },
    illustration_img: { write: text, column: 'illustration_img' },
    more_info: { write: text, column: 'more_info' },
    siret: { write: text, column: 'siret' },
    position: { write: integer, column: 'position' },
    headquarter: { write: boolean, column: 'headquarter' },
  },
};

const COMPACT_VEHICLE: ObjectWriter = {
  fields: { vin: { write: text, column: 'vin' }, license_number: { write: text, column: 'license_number' } },
};

/** The compact report's `data`: made of the row's own columns. */
const COMPACT_DATA: ObjectWriter = { fields: { vehicle: { object: COMPACT_VEHICLE } } };

const COMPACT_REPORT: ObjectWriter = {
  fields: {
    token: { write: uuid, column: 'token' },
    id: { write: uuid, column: 'token' },
    created_at: { write: timestamp, column: 'created_at' },
    updated_at: { write: timestamp, column: 'updated_at' },
    data: { object: COMPACT_DATA },
    organization_id: { write: uuid, column: 'organization_id' },
    dealership_id: { write: nullableUuid, column: 'dealership_id' },
    entity_id: { write: uuid, column: 'entity_id' },
    profile_id: { write: nullableUuid, column: 'profile_id' },
    contact_id: { write: nullableUuid, column: 'contact_id' },
    counter_id: { write: nullableUuid, column: 'counter_id' },
    type: { write: label, column: 'type' },
    valid: { write: boolean, column: 'valid' },
    // The organization's own dealership and user only, as their loaders read them
    // (dealerships.service.ts, users.service.ts findUsers): another's is null.
    dealership: {
      object: DEALERSHIP,
      relation: {
        alias: 'd',
        from: (row, organizationId) =>
          sql`dealerships d WHERE d.organization_id = ${organizationId}::uuid AND d.id = ${Prisma.raw(row)}.dealership_id`,
      },
    },
    profile: {
      object: USER,
      relation: {
        alias: 'u',
        from: (row, organizationId) =>
          sql`users u WHERE u.organization_id = ${organizationId}::uuid AND u.id = ${Prisma.raw(row)}.profile_id`,
      },
    },
  },
};

/**
 * The SQL of one object's JSON text from the row `row`, or undefined when a field is not known.
 * A relation's object is read by a subquery; no such row writes `null`.
 */
function objectJson(writer: ObjectWriter, select: readonly WrittenField[], row: string, organizationId: string): Prisma.Sql | undefined {
  if (select.length === 0) return undefined;
  const members: Prisma.Sql[] = [];
  for (const [index, selected] of select.entries()) {
    const known = writer.fields[selected.field];
    if (!known || !PLAIN_NAME.test(selected.key)) return undefined;
    const name = Prisma.raw(`'${index === 0 ? '{' : ','}"${selected.key}":'`);
    if ('write' in known) {
      if (selected.select) return undefined;
      members.push(sql`${name} || ${Prisma.raw(known.write(`${row}.${known.column}`))}`);
      continue;
    }
    if (!selected.select) return undefined;
    const relation = known.relation;
    const object = objectJson(known.object, selected.select, relation ? relation.alias : row, organizationId);
    if (!object) return undefined;
    members.push(
      relation
        ? sql`${name} || COALESCE((SELECT ${object} FROM ${relation.from(row, organizationId)}), 'null')`
        : sql`${name} || ${object}`,
    );
  }
  return sql`${Prisma.join(members, ' || ')} || '}'`;
}

/**
 * The expression writing a compact report's JSON text from the page's row `p`, or undefined when
 * the selection holds a field PostgreSQL does not write here.
 */
export function reportItemJsonSql(select: readonly WrittenField[], organizationId: string): Prisma.Sql | undefined {
  const text = objectJson(COMPACT_REPORT, select, 'p', organizationId);
  return text && sql`(${text})`;
}

/** Whether PostgreSQL writes every field of this selection of a compact report. */
export function writesReportItems(select: readonly WrittenField[]): boolean {
  return objectJson(COMPACT_REPORT, select, 'p', '00000000-0000-0000-0000-000000000000') !== undefined;
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
