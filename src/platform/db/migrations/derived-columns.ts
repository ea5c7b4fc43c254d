/**
 * Report columns that PostgreSQL derives from the `data` document (STORED generated columns).
 *
 * Prisma's schema language cannot declare a generated column, so `migrate diff` emits these as
 * plain nullable TEXT columns. `applyDerivedColumns` rewrites that output; `db:diff` and the drift
 * test both go through it, so the migrations and "the schema built from schema.prisma" agree.
 * Changing an expression later needs a migration that drops and re-adds the column.
 */

const text = (path: string) => `("data" #>> '{${path}}')`;
// Upper case without spaces and dashes: `AB-123-CD` and `ab 123cd` are the same plate.
const normalized = (path: string) => `upper(regexp_replace(${text(path)}, '[\\s-]+', '', 'g'))`;

const SEARCHED_PATHS = [
  'vehicle,vin',
  'vehicle,license,number',
  'vehicle,specifications,brand',
  'vehicle,specifications,model',
  'metadata,individual,name',
  'metadata,individual,email',
  'metadata,individual,phone',
  'metadata,name',
];

/**
 * One lower-cased text per report holding every field `search` looks in, separated by newlines:
 * search terms never contain whitespace, so a term can only match inside one field.
 * (`||` rather than concat_ws: generated columns need immutable expressions.)
 */
const searchText = `lower(${[
  ...SEARCHED_PATHS.map((p) => `coalesce(${text(p)}, '')`),
  // The plate and VIN once more without separators, so `ab123` finds `AB-123-CD`.
  `coalesce(${normalized('vehicle,license,number')}, '')`,
  `coalesce(${normalized('vehicle,vin')}, '')`,
].join(` || E'\\n' || `)})`;

export const REPORT_DERIVED_COLUMNS = {
  vin: text('vehicle,vin'),
  vin_norm: normalized('vehicle,vin'),
  license_number: text('vehicle,license,number'),
  license_number_norm: normalized('vehicle,license,number'),
  brand: text('vehicle,specifications,brand'),
  brand_norm: `lower(${text('vehicle,specifications,brand')})`,
  model: text('vehicle,specifications,model'),
  version: text('metadata,version'),
  version_norm: `lower(${text('metadata,version')})`,
  folder_name: text('metadata,name'),
  client_name: text('metadata,individual,name'),
  client_email: text('metadata,individual,email'),
  client_phone: text('metadata,individual,phone'),
  search_text: searchText,
} as const satisfies Record<string, string>;

export type DerivedReportColumn = keyof typeof REPORT_DERIVED_COLUMNS;

const REPORTS_TABLE = 'reports';

/** Turns the plain TEXT declarations of the derived report columns into generated columns. */
export function applyDerivedColumns(sql: string): string {
  const generated = (column: string) =>
    `"${column}" TEXT GENERATED ALWAYS AS (${REPORT_DERIVED_COLUMNS[column as DerivedReportColumn]}) STORED`;

  // Inside CREATE TABLE "reports" ( ... );
  let out = sql.replace(new RegExp(`CREATE TABLE "${REPORTS_TABLE}" \\(([\\s\\S]*?)\\n\\);`), (block) =>
    block.replace(/^(\s*)"(\w+)" TEXT,$/gm, (line, indent: string, column: string) =>
      column in REPORT_DERIVED_COLUMNS ? `${indent}${generated(column)},` : line,
    ),
  );
  // ALTER TABLE "reports" ADD COLUMN "x" TEXT (also in a multi-column ALTER).
  out = out.replace(new RegExp(`ALTER TABLE "${REPORTS_TABLE}"([\\s\\S]*?);`, 'g'), (statement) =>
    statement.replace(/ADD COLUMN "(\w+)" TEXT(?=[,;\n]|$)/g, (clause, column: string) =>
      column in REPORT_DERIVED_COLUMNS ? `ADD COLUMN ${generated(column)}` : clause,
    ),
  );
  return out;
}
