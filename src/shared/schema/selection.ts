/**
 * Whether a resolver's caller selected a field of its result: lets a list skip work nobody reads
 * (the exact total of a page is 85-90% of a list's database time). Follows inline fragments and
 * fragment spreads; a directive (@skip/@include) counts as selected, which only costs the work.
 */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  return info.fieldNodes.some((node) => node.selectionSet !== undefined && inSelection(info, node.selectionSet, name, 0));
}

/** Whether the caller selected `child` inside its `parent` field (e.g. a page's `items { dealership }`). */
export function selectsNestedField(info: GraphQLResolveInfo, parent: string, child: string): boolean {
  const parents: SelectionSetNode[] = [];
  for (const node of info.fieldNodes) if (node.selectionSet) collectFields(info, node.selectionSet, parent, parents, 0);
  return parents.some((selectionSet) => inSelection(info, selectionSet, child, 0));
}

function collectFields(info: GraphQLResolveInfo, selectionSet: SelectionSetNode, name: string, into: SelectionSetNode[], depth: number) {
  if (depth > 10) return;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === name && selection.selectionSet) into.push(selection.selectionSet);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) collectFields(info, selection.selectionSet, name, into, depth + 1);
    else {
      const fragment = info.fragments[selection.name.value];
      if (fragment) collectFields(info, fragment.selectionSet, name, into, depth + 1);
    }
  }
}

function inSelection(info: GraphQLResolveInfo, selectionSet: SelectionSetNode, name: string, depth: number): boolean {
  if (depth > 10) return true;
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name;
    if (selection.kind === Kind.INLINE_FRAGMENT) return inSelection(info, selection.selectionSet, name, depth + 1);
    const fragment = info.fragments[selection.name.value];
    return fragment !== undefined && inSelection(info, fragment.selectionSet, name, depth + 1);
  });
}

/**
 * The names of the fields selected inside `parent` (a page's `items`), through fragments and
 * whatever the directives say; undefined when that cannot be told exactly (fragments nested too deep).
 */
export function selectedNestedFieldNames(info: GraphQLResolveInfo, parent: string): Set<string> | undefined {
  const parents: SelectionSetNode[] = [];
  for (const node of info.fieldNodes) if (node.selectionSet && !collectAll(info, node.selectionSet, parent, parents, 0)) return undefined;
  const names = new Set<string>();
  for (const selectionSet of parents) if (!addFieldNames(info, selectionSet, names, 0)) return undefined;
  return names;
}

/** collectFields, saying false when a fragment was too deep (or unknown) to look into. */
function collectAll(
  info: GraphQLResolveInfo,
  selectionSet: SelectionSetNode,
  name: string,
  into: SelectionSetNode[],
  depth: number,
): boolean {
  if (depth > 10) return false;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === name && selection.selectionSet) into.push(selection.selectionSet);
      continue;
    }
    const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : info.fragments[selection.name.value]?.selectionSet;
    if (!inner || !collectAll(info, inner, name, into, depth + 1)) return false;
  }
  return true;
}

function addFieldNames(info: GraphQLResolveInfo, selectionSet: SelectionSetNode, into: Set<string>, depth: number): boolean {
  if (depth > 10) return false;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      into.add(selection.name.value);
      continue;
    }
    const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : info.fragments[selection.name.value]?.selectionSet;
    if (!inner || !addFieldNames(info, inner, into, depth + 1)) return false;
  }
  return true;
}
