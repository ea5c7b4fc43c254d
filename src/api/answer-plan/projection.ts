/**
 * A selection of part of a typed document (typed-documents.ts), made in the process from its text:
 * every value in it is already the text the typed path writes for its field (a field's value never
 * depends on its siblings), so the answer is pieces of that text, cut where the selection's fields
 * are and joined in the order graphql-js collects them. The text is scanned once, not parsed, and
 * only as far as the last selected member; its members are where the type's typed form puts them
 * (TextShape), so the scan steps over each key rather than reading it. Writing the parts in SQL
 * instead costs PostgreSQL a microsecond or more per leaf (docs/architecture.md, "Answering a
 * report").
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  parse,
  type FieldNode,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import { restSelectionOf } from '../../shared/schema/rest-visibility';
import { subfieldsOf, type SelectionScope } from './selection-scope';

/** Writes the selection of the typed value `text` (an object, or null). */
export type Projector = (text: string) => string;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * A text that is not the typed path's JSON (cut short, or written by hand into a typed column):
 * the field fails, where a scan past the text's end would otherwise loop for ever.
 */
function malformed(): never {
  throw new Error('a typed document is not the JSON text the typed path writes');
}

/**
 * The end of the string starting at `at`: the next quote not escaped. Most of a typed text is in
 * strings (keys and values), and indexOf skips them far faster than reading them a character at a time.
 */
function stringEnd(text: string, at: number): number {
  let quote = text.indexOf('"', at + 1);
  for (;;) {
    if (quote < 0) malformed();
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
}

/** The end of the JSON value starting at `at` (compact JSON, as the typed path writes it). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = at;
    for (let c = text.charCodeAt(i); c !== COMMA && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY && i < text.length; c = text.charCodeAt(++i));
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
  return malformed();
}

const isNull = (text: string, start: number) => text.charCodeAt(start) === 0x6e; // 'n'ull

/**
 * Whether the nodes select every field of `type` once, in its order, without aliases, `__typename`
 * or directives, down to the leaves: the typed text as it is (a document's canonical selection,
 * the REST body's).
 */
export function selectsWhole(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): boolean {
  const fields = Object.values(type.getFields());
  const collected = [...subfieldsOf(scope, type, nodes)];
  if (collected.length !== fields.length) return false;
  return collected.every(([key, fieldNodes], index) => {
    const field = fields[index]!;
    if (key !== field.name || fieldNodes.some((node) => node.name.value !== field.name || node.directives?.length)) return false;
    const named = getNamedType(field.type);
    return isObjectType(named) ? selectsWhole(scope, named, fieldNodes) : fieldNodes.every((node) => !node.selectionSet);
  });
}

/**
 * How the typed path writes an object type: every member of its REST selection (the selection the
 * typing functions write, typed-documents.ts), in that order, each present (null where the stored
 * document has nothing). The scan knows each key before it reads it, so it checks the key in
 * place rather than reading it out and looking it up.
 */
interface TextShape {
  type: GraphQLObjectType;
  fields: ShapeField[];
}

interface ShapeField {
  name: string;
  /** the member's key as the text holds it: `"name":` */
  key: string;
  /** an object's shape, or a list of objects' (their items'); undefined for a leaf */
  shape?: TextShape;
  list: boolean;
}

const textShapes = new WeakMap<GraphQLObjectType, TextShape>();

function textShapeOf(scope: SelectionScope, type: GraphQLObjectType): TextShape {
  let shape = textShapes.get(type);
  if (!shape) {
    const operation = parse(`{ d { ${restSelectionOf(type)} } }`).definitions[0] as OperationDefinitionNode;
    const restScope = { schema: scope.schema, fragments: {}, variables: {} };
    textShapes.set(type, (shape = shapeOf(restScope, type, [operation.selectionSet.selections[0] as FieldNode])));
  }
  return shape;
}

function shapeOf(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): TextShape {
  const fields = [...subfieldsOf(scope, type, nodes)].map(([name, fieldNodes]): ShapeField => {
    const field = type.getFields()[name]!;
    const named = getNamedType(field.type);
    const list = isListType(getNullableType(field.type));
    return { name, key: `"${name}":`, list, shape: isObjectType(named) ? shapeOf(scope, named, fieldNodes) : undefined };
  });
  return { type, fields };
}

/** One selected member of an object: its key, the field it reads, and how its value is written. */
interface Member {
  prefix: string;
  /** the field's name in the typed text; undefined for `__typename`, written as `prefix` alone */
  name?: string;
  /** an object's (or a list of objects') selection; undefined for a leaf, written as it stands */
  inner?: ObjectPlan;
  list: boolean;
}

interface ObjectPlan {
  whole: boolean;
  shape: TextShape;
  members: Member[];
  /** per member of the text (the shape's fields), the selected members reading it */
  readers: (number[] | undefined)[];
  /** the last member of the text a selected member reads (-1: none): a scan that needs no end stops after it */
  lastRead: number;
}

function plan(scope: SelectionScope, shape: TextShape, nodes: readonly FieldNode[]): ObjectPlan {
  const { type } = shape;
  const readers: (number[] | undefined)[] = shape.fields.map(() => undefined);
  if (selectsWhole(scope, type, nodes)) return { whole: true, shape, members: [], readers, lastRead: -1 };
  let lastRead = -1;
  const members = [...subfieldsOf(scope, type, nodes)].map(([key, fieldNodes], index): Member => {
    const name = fieldNodes[0]!.name.value;
    const prefix = `"${key}":`;
    if (name === '__typename') return { prefix: prefix + JSON.stringify(type.name), list: false };
    const at = shape.fields.findIndex((field) => field.name === name);
    // The planner projects only the document types, whose every field the typed path writes.
    if (at < 0) throw new Error(`${type.name}.${name} is not in the typed text`);
    (readers[at] ??= []).push(index);
    lastRead = Math.max(lastRead, at);
    const { shape: inner, list } = shape.fields[at]!;
    return inner ? { prefix, name, inner: plan(scope, inner, fieldNodes), list } : { prefix, name, list: false };
  });
  return { whole: false, shape, members, readers, lastRead };
}

/**
 * Whether a member's key stands at `at`: its quotes and colon where the key's length puts them.
 * Which key it is needs no reading, nor comparing: a typed text is used only when its row was
 * typed by this schema's functions (`typed_shape`), which write every member of the type, in this
 * order. The check keeps the scan on the text's structure: a text cut
 * short, or with its structure altered, ends in the error rather than in a scan without end.
 */
function keyAt(text: string, at: number, key: string): boolean {
  const end = at + key.length;
  return text.charCodeAt(at) === QUOTE && text.charCodeAt(end - 2) === QUOTE && text.charCodeAt(end - 1) === COLON;
}

/** The end of the `null` at `at`. */
function nullEnd(text: string, at: number): number {
  if (!text.startsWith('null', at)) malformed();
  return at + 4;
}

/** The end of the object of this shape at `at`, each member's key checked where it must stand. */
function objectEnd(text: string, at: number, shape: TextShape): number {
  if (text.charCodeAt(at) !== OPEN_OBJECT) malformed();
  const { fields } = shape;
  let i = at + 1;
  if (fields.length === 0) {
    if (text.charCodeAt(i) !== CLOSE_OBJECT) malformed();
    return i + 1;
  }
  for (let k = 0; k < fields.length; k += 1) {
    const field = fields[k]!;
    if (!keyAt(text, i, field.key)) malformed();
    i = memberEnd(text, i + field.key.length, field, k === fields.length - 1);
  }
  return i;
}

/** Past the value of `field` at `at` and the comma after it (past the closing brace after the last member). */
function memberEnd(text: string, at: number, field: ShapeField, last: boolean): number {
  const end = !field.shape
    ? valueEnd(text, at)
    : isNull(text, at)
      ? nullEnd(text, at)
      : field.list
        ? listEnd(text, at, field.shape)
        : objectEnd(text, at, field.shape);
  if (text.charCodeAt(end) !== (last ? CLOSE_OBJECT : COMMA)) malformed();
  return end + 1;
}

/** The end of the list of objects of this shape at `at` (items may be null). */
function listEnd(text: string, at: number, shape: TextShape): number {
  if (text.charCodeAt(at) !== OPEN_ARRAY) malformed();
  let i = at + 1;
  if (text.charCodeAt(i) === CLOSE_ARRAY) return i + 1;
  for (;;) {
    const end = isNull(text, i) ? nullEnd(text, i) : objectEnd(text, i, shape);
    const c = text.charCodeAt(end);
    if (c === CLOSE_ARRAY) return end + 1;
    if (c !== COMMA) malformed();
    i = end + 1;
  }
}

/** Where a scan stopped: the text written, and the end of the value read (-1 when the caller did not need it). */
interface Scanned {
  written: string;
  end: number;
}

/**
 * Writes the selection of the object (or null) at `at`, reading its members once, in the order
 * the typed text holds them; stops at the last selected one unless the caller needs the object's end.
 */
function scanObject(text: string, at: number, objectPlan: ObjectPlan, needEnd: boolean): Scanned {
  if (isNull(text, at)) return { written: 'null', end: nullEnd(text, at) };
  if (objectPlan.whole) {
    const end = objectEnd(text, at, objectPlan.shape);
    return { written: text.slice(at, end), end };
  }
  if (text.charCodeAt(at) !== OPEN_OBJECT) malformed();
  const { members, readers, lastRead } = objectPlan;
  const { fields } = objectPlan.shape;
  const values: string[] = members.map((member) => (member.name === undefined ? member.prefix : ''));
  const write = () => `{${values.join(',')}}`;
  if (fields.length === 0) return { written: write(), end: objectEnd(text, at, objectPlan.shape) };
  const stop = needEnd ? fields.length - 1 : lastRead;
  let i = at + 1;
  for (let k = 0; k <= stop; k += 1) {
    const field = fields[k]!;
    if (!keyAt(text, i, field.key)) malformed();
    const valueStart = i + field.key.length;
    const reading = readers[k];
    if (!reading) {
      i = memberEnd(text, valueStart, field, k === fields.length - 1);
      continue;
    }
    // The last selected member of an object whose end nobody needs: the scan ends with it.
    const last = k === stop && !needEnd && reading.length === 1;
    let valueStop = -1;
    for (const index of reading) {
      const member = members[index]!;
      if (member.inner) {
        const scanned = member.list ? scanList(text, valueStart, member.inner) : scanObject(text, valueStart, member.inner, !last);
        values[index] = member.prefix + scanned.written;
        valueStop = scanned.end;
      } else {
        if (valueStop < 0) valueStop = valueEnd(text, valueStart);
        values[index] = member.prefix + text.slice(valueStart, valueStop);
      }
    }
    if (last) return { written: write(), end: -1 };
    if (text.charCodeAt(valueStop) !== (k === fields.length - 1 ? CLOSE_OBJECT : COMMA)) malformed();
    i = valueStop + 1;
  }
  return { written: write(), end: needEnd ? i : -1 };
}

/** A list of objects (or null): each item's selection. */
function scanList(text: string, at: number, itemPlan: ObjectPlan): Scanned {
  if (isNull(text, at)) return { written: 'null', end: nullEnd(text, at) };
  if (text.charCodeAt(at) !== OPEN_ARRAY) malformed();
  const written: string[] = [];
  let i = at + 1;
  if (text.charCodeAt(i) !== CLOSE_ARRAY) {
    for (;;) {
      const item = scanObject(text, i, itemPlan, true);
      written.push(item.written);
      const c = text.charCodeAt(item.end);
      if (c === CLOSE_ARRAY) {
        i = item.end;
        break;
      }
      if (c !== COMMA) malformed();
      i = item.end + 1;
    }
  }
  return { written: `[${written.join(',')}]`, end: i + 1 };
}

/** Writes the selection `nodes` make of `type` from its typed text (the typed path's JSON of the whole object). */
export function projector(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): Projector {
  const objectPlan = plan(scope, textShapeOf(scope, type), nodes);
  return (text) => scanObject(text, 0, objectPlan, false).written;
}
