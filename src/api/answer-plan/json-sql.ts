/**
 * SQL expressions that write one value's JSON text exactly as the typed path writes it (graphql-js
 * completing the field by its type, then `JSON.stringify`), or NULL where PostgreSQL cannot: then
 * the object holding the value is answered the typed way (a NULL anywhere in an object's `||`
 * concatenation makes the whole object NULL). So every expression here is either the typed path's
 * exact text or NULL, never another text; test/answer-plan compares both on generated values.
 *
 * Columns have a PostgreSQL type, so their text is fixed by it:
 *  - UUIDs: PostgreSQL's text (lower-case hex), which pg hands to the UUID scalar;
 *  - text: `to_json(text)` escapes exactly what `JSON.stringify` escapes (`"`, `\`, the controls
 *    below U+0020 with the same short forms and lower-case `\u00XX`; nothing else);
 *  - timestamps (`timestamptz(3)`): the UTC text `toISOString` writes, for years 0100 to 9999
 *    (any other is NULL: `toISOString` writes those with six digits and a sign);
 *  - booleans, integers, enum labels (the GraphQL enum's values: both come from the Prisma schema).
 *
 * A document's value (jsonb) may be of any JSON type, and each GraphQL scalar coerces it as
 * graphql-js does (`String`: a number or boolean becomes its text; `Float`: a boolean becomes 1 or
 * 0; `Boolean`: a number is true unless 0). Where graphql-js raises a field error (an object for a
 * String, a string for a Float, a non-list for a list), the expression is NULL.
 *
 * Numbers: jsonb keeps a number's decimal digits as written; JavaScript reads them into a double
 * and writes the shortest text that reads back the same, in exponent form below 1e-6 and from
 * 1e21. Both agree on a number of at most 15 significant digits between those bounds once the
 * trailing zeros of its fraction are dropped (15 digits always survive a double); any other is NULL.
 *
 * JSON values (the JSON scalar) are `JSON.stringify` of what `JSON.parse` made of jsonb's text:
 * jsonb's text without its separators' spaces, when its numbers are all of the kind above and no
 * object holds a key that JavaScript orders first (an array index such as "10"); else NULL.
 */

/** SQL string literal. */
export const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

// Columns

/** A column's JSON text when it is not NULL; `nullable` writes `null` for NULL, else NULL stays (a non-null field's error). */
const orNull = (expression: string, column: string, nullable: boolean) =>
  nullable ? `(CASE WHEN ${column} IS NULL THEN 'null' ELSE ${expression} END)` : expression;

export const columnWriters = {
  uuid: (c: string, nullable: boolean) => orNull(`('"' || ${c}::text || '"')`, c, nullable),
  text: (c: string, nullable: boolean) => orNull(`to_json(${c})::text`, c, nullable),
  boolean: (c: string, nullable: boolean) => `(CASE WHEN ${c} THEN 'true' WHEN NOT ${c} THEN 'false'${nullable ? " ELSE 'null'" : ''} END)`,
  integer: (c: string, nullable: boolean) => orNull(`${c}::text`, c, nullable),
  label: (c: string, nullable: boolean) => orNull(`('"' || ${c}::text || '"')`, c, nullable),
  timestamp: (c: string, nullable: boolean) =>
    orNull(
      `(CASE WHEN ${c} >= '0100-01-01T00:00:00Z' AND ${c} < '10000-01-01T00:00:00Z' ` +
        `THEN '"' || to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' END)`,
      c,
      nullable,
    ),
  /** text[] as a list of non-null strings: a NULL element is the typed path's error */
  textList: (c: string, nullable: boolean) =>
    orNull(`(CASE WHEN array_position(${c}, NULL) IS NULL THEN array_to_json(${c})::text END)`, c, nullable),
  /** any JSON value of a jsonb column (a JSON scalar field) */
  json: (c: string, nullable: boolean) => orNull(`vr_js_json(${c})`, c, nullable),
} as const;

export type ColumnWriter = keyof typeof columnWriters;

// Document values (jsonb, any JSON type; NULL: the key is missing)

/**
 * Each leaf is written inline for its common forms (a string where a String is, an integer where
 * a Float is, a boolean where a Boolean is, null, a missing key), and by one of the functions of
 * JSON_FUNCTIONS otherwise: a statement's cost grows with the nodes of its expressions (every
 * execution initializes them), so the rare forms are a function call apiece rather than their
 * whole logic at every leaf.
 */
const leaf = (v: string, inline: Record<string, string>, other: string) =>
  `(CASE COALESCE(jsonb_typeof(${v}), 'null') ${Object.entries(inline)
    .map(([type, text]) => `WHEN '${type}' THEN ${text} `)
    .join('')}WHEN 'null' THEN 'null' ELSE ${other}(${v}) END)`;

export const documentWriters = {
  String: (v: string) => leaf(v, { string: `(${v})::text` }, 'vr_js_string'),
  Float: (v: string) =>
    leaf(v, { number: `(CASE WHEN (${v})::text ~ '^-?[0-9]{1,15}$' THEN (${v})::text ELSE vr_js_float(${v}) END)` }, 'vr_js_float'),
  Boolean: (v: string) => leaf(v, { boolean: `(${v})::text` }, 'vr_js_boolean'),
  JSON: (v: string) => leaf(v, { string: `(${v})::text`, boolean: `(${v})::text` }, 'vr_js_json'),
} as const;

/** A list of JSON values: the array's own text (each item is written as itself); any other value is the typed path's error. */
export const documentJsonList = (v: string) =>
  `(CASE COALESCE(jsonb_typeof(${v}), 'null') WHEN 'null' THEN 'null' WHEN 'array' THEN vr_js_json(${v}) END)`;

/** A JSON string (kept as it is), or a separator and its space (the space dropped). */
const STRING_OR_SEPARATOR = '("(?:[^"\\\\]|\\\\.)*")|([,:]) ';

/** In jsonb's text, what JavaScript would write otherwise (see JSON_FUNCTIONS). */
const JS_DIFFERS = '"(?:0|[1-9][0-9]*)": |(?:^|[[ ])-?(?:[0-9]{16}|[0-9.]{17}|[0-9]*\\.[0-9]*0(?![0-9])|0\\.000000)';

/**
 * The functions the writers call, defined by the typing migration (typed-documents.ts), each the
 * typed path's text or NULL: vr_js_number (numbers, see above; more digits only when they are the
 * double's shortest), graphql-js's String, Float and Boolean serializers (NULL where they raise, or
 * for a string such as " 12 " or "0x1A" that Number() reads), and JSON.stringify (vr_js_json:
 * jsonb's text without its separators' spaces, else written member by member).
 */
export const JSON_FUNCTIONS = `CREATE OR REPLACE FUNCTION vr_js_number(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  t text := v::text;
  trimmed text;
BEGIN
  IF t ~ '^-?[0-9]{1,15}$' THEN RETURN t; END IF;
  IF t !~ '^-?[0-9]+\\.[0-9]+$' OR length(t) > 40 OR t ~ '^-?0\\.000000' THEN RETURN NULL; END IF;
  trimmed := rtrim(rtrim(t, '0'), '.');
  IF length(ltrim(translate(trimmed, '-.', ''), '0')) <= 15 THEN RETURN trimmed; END IF;
  -- More digits: JavaScript's text when they are the shortest that read back as the same double,
  -- which is PostgreSQL's text of it too (plain between 1e-4 and 1e15).
  IF trimmed::float8::text = trimmed THEN RETURN trimmed; END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION vr_js_string(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  RETURN CASE COALESCE(jsonb_typeof(v), 'null')
    WHEN 'string' THEN v::text
    WHEN 'number' THEN '"' || vr_js_number(v) || '"'
    WHEN 'boolean' THEN '"' || v::text || '"'
    WHEN 'null' THEN 'null'
  END;
END
$fn$;

CREATE OR REPLACE FUNCTION vr_js_float(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  RETURN CASE COALESCE(jsonb_typeof(v), 'null')
    WHEN 'number' THEN vr_js_number(v)
    WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN '1' ELSE '0' END
    -- A plain decimal string is the number it spells (JavaScript's Number); other strings are the typed path's.
    WHEN 'string' THEN CASE WHEN length(v #>> '{}') < 40 AND (v #>> '{}') ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN vr_js_number(to_jsonb((v #>> '{}')::numeric)) END
    WHEN 'null' THEN 'null'
  END;
END
$fn$;

CREATE OR REPLACE FUNCTION vr_js_boolean(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
BEGIN
  RETURN CASE COALESCE(jsonb_typeof(v), 'null')
    WHEN 'boolean' THEN v::text
    -- A number too long to read safely is JavaScript's Infinity or 0: the typed path's.
    WHEN 'number' THEN CASE WHEN length(v::text) < 300 THEN CASE WHEN v::numeric = 0 THEN 'false' ELSE 'true' END END
    WHEN 'null' THEN 'null'
  END;
END
$fn$;

CREATE OR REPLACE FUNCTION vr_js_json_walked(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  written text;
  members bigint;
BEGIN
  CASE COALESCE(jsonb_typeof(v), 'null')
    WHEN 'object' THEN
      -- JavaScript orders the keys that are array indexes first: such an object is not written here.
      IF EXISTS (SELECT 1 FROM jsonb_object_keys(v) k WHERE k ~ '^(0|[1-9][0-9]*)$') THEN RETURN NULL; END IF;
      SELECT '{' || COALESCE(string_agg(to_json(key)::text || ':' || w, ',' ORDER BY n), '') || '}', count(*) - count(w)
        INTO written, members
        FROM (SELECT key, vr_js_json_walked(value) AS w, n FROM jsonb_each(v) WITH ORDINALITY AS e(key, value, n)) m;
      IF members > 0 THEN RETURN NULL; END IF;
      RETURN written;
    WHEN 'array' THEN
      SELECT '[' || COALESCE(string_agg(w, ',' ORDER BY n), '') || ']', count(*) - count(w)
        INTO written, members
        FROM (SELECT vr_js_json_walked(e) AS w, n FROM jsonb_array_elements(v) WITH ORDINALITY AS a(e, n)) m;
      IF members > 0 THEN RETURN NULL; END IF;
      RETURN written;
    WHEN 'number' THEN RETURN vr_js_number(v);
    WHEN 'null' THEN RETURN 'null';
    ELSE RETURN v::text;
  END CASE;
END
$fn$;

CREATE OR REPLACE FUNCTION vr_js_json(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  t text;
BEGIN
  CASE COALESCE(jsonb_typeof(v), 'null')
    WHEN 'null' THEN RETURN 'null';
    WHEN 'number' THEN RETURN vr_js_number(v);
    WHEN 'object', 'array' THEN
      t := v::text;
      -- Something JavaScript may write otherwise: written member by member.
      IF t ~ ${quote(JS_DIFFERS)} THEN RETURN vr_js_json_walked(v); END IF;
      RETURN regexp_replace(t, ${quote(STRING_OR_SEPARATOR)}, '\\1\\2', 'g');
    ELSE RETURN v::text;
  END CASE;
END
$fn$;`;
