/**
 * The other spellings of a JSON query parameter, read as the same JSON text or refused, never
 * ignored. The document publishes a JSON filter as FastAPI does (a string whose content is JSON),
 * but some generators (orval, Zodios) and hand-written clients send the `deepObject` spelling,
 * `?state__contains[folder_sold][status]=true`, which FastAPI would ignore (unknown names) and
 * answer the unfiltered page: silently wrong. Here the brackets build the same JSON text, each
 * member's value read as JSON when it is JSON text (`[status]=true` the boolean, `[code]="123"` the
 * string "123") and as a string otherwise (`Renault`). What the brackets cannot say without guessing
 * (`[]`, an empty or unclosed bracket, a member given twice or also a parent, both spellings at
 * once) and the dotted spelling (`state__contains.folder_sold=...`) are a 422 naming the JSON text.
 */
import { parseJsonLikePydantic } from './json-query';

export type JsonMembersRead =
  /** no bracketed or dotted parameter of this name: the plain parameter, if any, as sent */
  | { kind: 'none' }
  /** bracketed members folded into one JSON text */
  | { kind: 'text'; text: string }
  | { kind: 'refused'; message: string; input: unknown };

type Tree = Map<string, Tree | string>;

/** The deepObject members of the JSON query parameter `name` in `query`, as one JSON text. */
export function readJsonMembers(name: string, query: Record<string, string | string[] | undefined>): JsonMembersRead {
  const members = Object.keys(query).filter((key) => key.length > name.length && key.startsWith(name) && '[.'.includes(key[name.length]!));
  if (members.length === 0) return { kind: 'none' };
  const refuse = (why: string, input: unknown): JsonMembersRead => ({
    kind: 'refused',
    message: `${why}; send the filter as JSON text, e.g. ${name}={"folder_sold":{"status":true}} (URL-encoded), or as ${name}[folder_sold][status]=true`,
    input,
  });
  if (Object.prototype.hasOwnProperty.call(query, name)) return refuse(`both ${name} and ${members[0]} given`, query[name]);
  const tree: Tree = new Map();
  for (const key of members) {
    const value = query[key];
    const path = bracketPath(key.slice(name.length));
    if (!path) return refuse(`cannot read the parameter ${key}`, value);
    if (Array.isArray(value)) return refuse(`${key} given ${value.length} times`, value);
    let node = tree;
    for (const segment of path.slice(0, -1)) {
      const child = node.get(segment) ?? new Map();
      if (typeof child === 'string') return refuse(`${key} given twice or also used as an object`, value);
      node.set(segment, child);
      node = child;
    }
    if (node.has(path.at(-1)!)) return refuse(`${key} given twice or also used as an object`, value);
    node.set(path.at(-1)!, value ?? '');
  }
  return { kind: 'text', text: treeText(tree) };
}

/** `[a][b]` → `['a', 'b']`; null for anything else (dots, `[]`, an unclosed bracket, trailing text). */
function bracketPath(rest: string): string[] | null {
  const path: string[] = [];
  const pattern = /\[([^[\]]+)\]/y;
  let index = 0;
  while (index < rest.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(rest);
    if (!match) return null;
    path.push(match[1]!);
    index = pattern.lastIndex;
  }
  return path.length > 0 ? path : null;
}

/** The members as JSON text: a leaf that is JSON text verbatim (NaN kept, as Python's json reads it), else a string. */
function treeText(tree: Tree): string {
  const parts: string[] = [];
  for (const [key, value] of tree) {
    const text = typeof value === 'string' ? leafText(value) : treeText(value);
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function leafText(value: string): string {
  return parseJsonLikePydantic(value).ok ? value : JSON.stringify(value);
}
