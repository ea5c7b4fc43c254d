/**
 * The shape of an operation's selection once its fragments are expanded: how many fields it
 * selects and how deep it nests. Computed once per fragment (memoized), so the work is linear in
 * the document's text even when its expansion is exponential: a 1.5 kB document whose fragments
 * spread fragments can select millions of fields, and everything that walks the expanded
 * selection (pricing, graphql-depth-limit, execution) would pay for each one. Nothing walks it
 * before this bound has been checked.
 */
import { Kind, type DocumentNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export interface SelectionShape {
  /** fields selected after every fragment is expanded, aliases and introspection fields included */
  fields: number;
  /** nesting of fields that have a selection, introspection fields not counted (as graphql-depth-limit) */
  depth: number;
}

/** What an unknown fragment or a cycle of fragments expands to: graphql-js's own rules report those. */
const BROKEN: SelectionShape = { fields: 0, depth: 0 };

/** The document's fragments by name. */
export const fragmentsByName = (document: DocumentNode) =>
  new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));

export function selectionShapes(document: DocumentNode): Map<OperationDefinitionNode, SelectionShape> {
  const fragments = fragmentsByName(document);
  const ofFragment = new Map<string, SelectionShape>();
  const expanding = new Set<string>();

  const fragmentShape = (name: string): SelectionShape => {
    const known = ofFragment.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    if (!fragment || expanding.has(name)) return BROKEN;
    expanding.add(name);
    const shape = shapeOf(fragment.selectionSet);
    expanding.delete(name);
    ofFragment.set(name, shape);
    return shape;
  };

  // Recursion follows the document's own nesting (the parser bounds it), never an expansion.
  const shapeOf = (selectionSet: SelectionSetNode): SelectionShape => {
    let fields = 0;
    let depth = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const child = selection.selectionSet ? shapeOf(selection.selectionSet) : BROKEN;
        fields += 1 + child.fields;
        if (selection.selectionSet && !selection.name.value.startsWith('__')) depth = Math.max(depth, 1 + child.depth);
        continue;
      }
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? shapeOf(selection.selectionSet) : fragmentShape(selection.name.value);
      fields += inner.fields;
      depth = Math.max(depth, inner.depth);
    }
    // Past 2^53 the count is only "too many"; it never wraps.
    return { fields: Math.min(fields, Number.MAX_SAFE_INTEGER), depth };
  };

  return new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [[d, shapeOf(d.selectionSet)] as const] : [])),
  );
}

/** Fields of all the document's operations once fragments expand (see `selectionShapes`). */
export function expandedFieldCount(document: DocumentNode): number {
  let total = 0;
  for (const shape of selectionShapes(document).values()) total += shape.fields;
  return Math.min(total, Number.MAX_SAFE_INTEGER);
}
