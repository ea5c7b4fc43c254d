/**
 * A selection of part of a typed document (typed-documents.ts), made in the process from its text:
 * every value in it is already the text the typed path writes for its field (a field's value never
 * depends on its siblings), so the answer is pieces of that text, cut where the selection's fields
 * are and joined in the order graphql-js collects them. The text is scanned once, not parsed, and
 * only as far as the last selected member. Writing the parts in SQL instead costs PostgreSQL a
 * microsecond or more per leaf (docs/architecture.md, "Answering a report").
 */
import { getNamedType, getNullableType, isListType, isObjectType, type FieldNode, type GraphQLObjectType } from 'graphql';
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
  members: Member[];
  /** the members reading each field, by the field's name */
  byName: Map<string, number[]>;
}

function plan(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): ObjectPlan {
  if (selectsWhole(scope, type, nodes)) return { whole: true, members: [], byName: new Map() };
  const members = [...subfieldsOf(scope, type, nodes)].map(([key, fieldNodes]): Member => {
    const name = fieldNodes[0]!.name.value;
    const prefix = `"${key}":`;
    if (name === '__typename') return { prefix: prefix + JSON.stringify(type.name), list: false };
    const field = type.getFields()[name]!;
    const named = getNamedType(field.type);
    if (!isObjectType(named)) return { prefix, name, list: false };
    return { prefix, name, inner: plan(scope, named, fieldNodes), list: isListType(getNullableType(field.type)) };
  });
  const byName = new Map<string, number[]>();
  members.forEach((member, index) => {
    if (member.name !== undefined) byName.set(member.name, [...(byName.get(member.name) ?? []), index]);
  });
  return { whole: false, members, byName };
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
  if (objectPlan.whole || isNull(text, at)) {
    const end = valueEnd(text, at);
    return { written: text.slice(at, end), end };
  }
  const { members, byName } = objectPlan;
  const values: string[] = members.map((member) => (member.name === undefined ? member.prefix : ''));
  let remaining = byName.size;
  let i = at + 1;
  while (text.charCodeAt(i) !== CLOSE_OBJECT) {
    // A member: "key":value (member names are GraphQL names: no escapes).
    const keyEnd = text.indexOf('"', i + 1);
    if (keyEnd < 0) malformed();
    const valueStart = keyEnd + 2;
    const readers = remaining > 0 ? byName.get(text.slice(i + 1, keyEnd)) : undefined;
    let valueStop = -1;
    if (readers) {
      remaining -= 1;
      // The last selected member of an object whose end nobody needs: the scan ends with it.
      const last = remaining === 0 && !needEnd && readers.length === 1;
      for (const index of readers) {
        const member = members[index]!;
        const scanned = member.inner
          ? member.list
            ? scanList(text, valueStart, member.inner)
            : scanObject(text, valueStart, member.inner, !last)
          : { written: '', end: valueStop >= 0 ? valueStop : valueEnd(text, valueStart) };
        valueStop = scanned.end;
        values[index] = member.prefix + (member.inner ? scanned.written : text.slice(valueStart, valueStop));
      }
      if (last) return { written: `{${values.join(',')}}`, end: -1 };
    }
    if (valueStop < 0) valueStop = valueEnd(text, valueStart);
    // past the comma, or onto the closing brace
    i = text.charCodeAt(valueStop) === COMMA ? valueStop + 1 : valueStop;
  }
  return { written: `{${values.join(',')}}`, end: i + 1 };
}

/** A list of objects (or null): each item's selection. */
function scanList(text: string, at: number, itemPlan: ObjectPlan): Scanned {
  if (isNull(text, at)) return { written: 'null', end: at + 4 };
  const written: string[] = [];
  let i = at + 1;
  while (text.charCodeAt(i) !== CLOSE_ARRAY) {
    const item = scanObject(text, i, itemPlan, true);
    written.push(item.written);
    const next = text.charCodeAt(item.end) === COMMA ? item.end + 1 : item.end;
    // Past the text's end an item reads as empty: the list would not move on.
    if (next <= i) malformed();
    i = next;
  }
  return { written: `[${written.join(',')}]`, end: i + 1 };
}

export function projector(scope: SelectionScope, type: GraphQLObjectType, nodes: readonly FieldNode[]): Projector {
  const objectPlan = plan(scope, type, nodes);
  return (text) => scanObject(text, 0, objectPlan, false).written;
}
