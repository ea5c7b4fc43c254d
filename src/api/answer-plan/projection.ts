/**
 * A selection of part of a typed document (the JSON text PostgreSQL keeps of a report's whole
 * document, typed-documents.ts), made in the process from its text: every value in a typed
 * document is already the text the typed path writes for its field (a field's value never depends
 * on its siblings), so the answer is pieces of that text, cut where the selection's fields are
 * and joined in the selection's order (aliases, fragments, merged fields, @skip/@include,
 * `__typename`, as graphql-js collects them). The text is scanned, not parsed: no value is built
 * and written again. Writing the parts in SQL instead costs PostgreSQL a microsecond or more per
 * leaf (docs/architecture.md, "Answering a report").
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';

/** Writes the selection of the typed value `text.slice(start, end)` (an object, or null). */
export type Projector = (text: string, start?: number, end?: number) => string;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The end of the JSON value starting at `at` (compact JSON, as the typed path writes it). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) {
    let i = at + 1;
    for (let c = text.charCodeAt(i); c !== QUOTE; c = text.charCodeAt(++i)) if (c === BACKSLASH) i += 1;
    return i + 1;
  }
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = at;
    for (let c = text.charCodeAt(i); c !== COMMA && c !== CLOSE_OBJECT && c !== CLOSE_ARRAY && i < text.length; c = text.charCodeAt(++i));
    return i;
  }
  let depth = 0;
  for (let i = at; ; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = valueEnd(text, i) - 1;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth += 1;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
}

/** Where each member's value stands in the object `text[start, end)`: its key's start and end, then its value's. */
function membersOf(text: string, start: number, end: number): Map<string, [number, number]> {
  const members = new Map<string, [number, number]>();
  for (let at = start + 1; at < end - 1;) {
    // A member: "key":value (member names are GraphQL names: no escapes).
    const keyEnd = text.indexOf('"', at + 1);
    const valueStart = keyEnd + 2;
    const valueStop = valueEnd(text, valueStart);
    members.set(text.slice(at + 1, keyEnd), [valueStart, valueStop]);
    at = valueStop + 1;
  }
  return members;
}

/** The items of the array `text[start, end)`: each one's start and end. */
function itemsOf(text: string, start: number, end: number): [number, number][] {
  const items: [number, number][] = [];
  for (let at = start + 1; at < end - 1;) {
    const stop = valueEnd(text, at);
    items.push([at, stop]);
    at = stop + 1;
  }
  return items;
}

const isNull = (text: string, start: number) => text.charCodeAt(start) === 0x6e; // 'n'ull

/**
 * Whether the nodes select every field of `type` once, in its order, without aliases, `__typename`
 * or directives, down to the leaves: the typed text as it is (a document's canonical selection,
 * the REST body's).
 */
export function selectsWhole(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): boolean {
  const fields = Object.values(type.getFields());
  const collected = [...collectSubfields(schema, fragments, variables, type, nodes)];
  if (collected.length !== fields.length) return false;
  return collected.every(([key, fieldNodes], index) => {
    const field = fields[index]!;
    if (key !== field.name || fieldNodes.some((node) => node.name.value !== field.name || node.directives?.length)) return false;
    const named = getNamedType(field.type);
    return isObjectType(named)
      ? selectsWhole(schema, fragments, variables, named, fieldNodes)
      : fieldNodes.every((node) => !node.selectionSet);
  });
}

export function projector(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): Projector {
  if (selectsWhole(schema, fragments, variables, type, nodes)) return (text, start = 0, end = text.length) => text.slice(start, end);
  type Member = (text: string, members: Map<string, [number, number]>) => string;
  const members: Member[] = [...collectSubfields(schema, fragments, variables, type, nodes)].map(([key, fieldNodes]) => {
    const name = fieldNodes[0]!.name.value;
    const prefix = `"${key}":`;
    if (name === '__typename') {
      const written = prefix + JSON.stringify(type.name);
      return () => written;
    }
    const field = type.getFields()[name]!;
    const named = getNamedType(field.type);
    if (!isObjectType(named)) {
      return (text, found) => {
        const [start, end] = found.get(name)!;
        return prefix + text.slice(start, end);
      };
    }
    const inner = projector(schema, fragments, variables, named, fieldNodes);
    if (!isListType(getNullableType(field.type))) {
      return (text, found) => {
        const [start, end] = found.get(name)!;
        return prefix + inner(text, start, end);
      };
    }
    return (text, found) => {
      const [start, end] = found.get(name)!;
      if (isNull(text, start)) return `${prefix}null`;
      return `${prefix}[${itemsOf(text, start, end)
        .map(([itemStart, itemEnd]) => inner(text, itemStart, itemEnd))
        .join(',')}]`;
    };
  });
  return (text, start = 0, end = text.length) => {
    if (isNull(text, start)) return 'null';
    const found = membersOf(text, start, end);
    let written = '{';
    for (let index = 0; index < members.length; index += 1) written += (index === 0 ? '' : ',') + members[index]!(text, found);
    return `${written}}`;
  };
}
