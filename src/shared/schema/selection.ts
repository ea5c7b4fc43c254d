/**
 * Whether a resolver's caller selected a field of its result: lets a list skip work nobody reads
 * (the exact total of a page is 85-90% of a list's database time). Follows inline fragments and
 * fragment spreads; a directive (@skip/@include) counts as selected, which only costs the work.
 */
import { Kind, type GraphQLResolveInfo, type SelectionNode, type SelectionSetNode } from 'graphql';

/** Fragments are followed this deep; past it, the answers lean to "selected" (more work, never less). */
const MAX_FRAGMENT_DEPTH = 10;

export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && inSelection(info, node.selectionSet, name, 0));
}

/** Whether the caller selected `child` inside its `parent` field (e.g. a page's `items { dealership }`). */
export function selectsNestedField(info: GraphQLResolveInfo, parent: string, child: string): boolean {
  const parents = selectionSetsOf(info, parent);
  return parents === undefined || parents.some((selectionSet) => inSelection(info, selectionSet, child, 0));
}

/**
 * The names of the fields selected inside `parent` (a page's `items`), through fragments and
 * whatever the directives say; undefined when that cannot be told exactly (fragments nested too deep).
 */
export function selectedNestedFieldNames(info: GraphQLResolveInfo, parent: string): Set<string> | undefined {
  const parents = selectionSetsOf(info, parent);
  if (!parents) return undefined;
  const names = new Set<string>();
  const addNames = (selectionSet: SelectionSetNode, depth: number): boolean =>
    eachField(info, selectionSet, depth, (field) => {
      names.add(field.name.value);
    });
  return parents.every((selectionSet) => addNames(selectionSet, 0)) ? names : undefined;
}

/** The selection sets of every `name` field the caller selected; undefined when fragments were too deep to follow. */
function selectionSetsOf(info: GraphQLResolveInfo, name: string): SelectionSetNode[] | undefined {
  const found: SelectionSetNode[] = [];
  const complete = info.fieldNodes.every(
    (node) =>
      !node.selectionSet ||
      eachField(info, node.selectionSet, 0, (field) => {
        if (field.name.value === name && field.selectionSet) found.push(field.selectionSet);
      }),
  );
  return complete ? found : undefined;
}

/** Calls `visit` on each field of the selection set, fragments followed; false when one could not be (too deep, unknown). */
function eachField(
  info: GraphQLResolveInfo,
  selectionSet: SelectionSetNode,
  depth: number,
  visit: (field: Extract<SelectionNode, { kind: Kind.FIELD }>) => void,
): boolean {
  if (depth > MAX_FRAGMENT_DEPTH) return false;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      visit(selection);
      continue;
    }
    const inner = innerSelectionSet(info, selection);
    if (!inner || !eachField(info, inner, depth + 1, visit)) return false;
  }
  return true;
}

function inSelection(info: GraphQLResolveInfo, selectionSet: SelectionSetNode, name: string, depth: number): boolean {
  if (depth > MAX_FRAGMENT_DEPTH) return true;
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name;
    const inner = innerSelectionSet(info, selection);
    return inner !== undefined && inSelection(info, inner, name, depth + 1);
  });
}

/** An inline fragment's selection set, or the named fragment's (undefined when the document has none of that name). */
function innerSelectionSet(
  info: GraphQLResolveInfo,
  selection: Exclude<SelectionNode, { kind: Kind.FIELD }>,
): SelectionSetNode | undefined {
  return selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : info.fragments[selection.name.value]?.selectionSet;
}
