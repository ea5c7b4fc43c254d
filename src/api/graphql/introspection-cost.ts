/**
 * The size of an introspection answer, known before it runs, counted on the schema itself (which
 * does not change): each list costs what it holds, not 1. Exact, or above it when a response name
 * is selected twice (graphql-js merges those). A selection is counted once per schema element it
 * applies to and remembered, so 25 aliases of the same fragment cost one count; the walk is
 * bounded (MAX_STEPS) and an answer past it is simply "too large".
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isAbstractType,
  Kind,
  type DocumentNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { fragmentsByName } from './selection-shape';

type IntrospectionKind = '__Schema' | '__Type' | '__Field' | '__InputValue' | '__EnumValue' | '__Directive';

interface Children {
  kind: IntrospectionKind;
  /** a list's items, or the one object (none: null) */
  items: readonly object[];
  list?: true;
}

/** Memo misses allowed per count: far above the standard introspection query's few thousand. */
const MAX_STEPS = 200_000;

const listOf = (kind: IntrospectionKind, items: readonly object[]): Children => ({ kind, items, list: true });
/** A type or null (one value). */
const typeOrNull = (type: object | null | undefined): Children => ({ kind: '__Type', items: type ? [type] : [] });

/** What a field of an introspection object holds: a list or a single object of another kind, or a leaf. */
function childrenOf(schema: GraphQLSchema, kind: IntrospectionKind, entity: object, field: string): Children | number {
  switch (kind) {
    case '__Schema':
      if (field === 'types') return { kind: '__Type', items: Object.values(schema.getTypeMap()), list: true };
      if (field === 'directives') return { kind: '__Directive', items: schema.getDirectives(), list: true };
      if (field === 'queryType') return typeOrNull(schema.getQueryType());
      if (field === 'mutationType') return typeOrNull(schema.getMutationType());
      if (field === 'subscriptionType') return typeOrNull(schema.getSubscriptionType());
      return 1;
    case '__Type': {
      const type = entity as Parameters<typeof isObjectType>[0];
      // Each list is null (one value) on the kinds of type that do not have it.
      if (field === 'fields') return isObjectType(type) || isInterfaceType(type) ? listOf('__Field', Object.values(type.getFields())) : 1;
      if (field === 'interfaces') return isObjectType(type) || isInterfaceType(type) ? listOf('__Type', type.getInterfaces()) : 1;
      if (field === 'possibleTypes') return isAbstractType(type) ? listOf('__Type', schema.getPossibleTypes(type)) : 1;
      if (field === 'enumValues') return isEnumType(type) ? listOf('__EnumValue', type.getValues()) : 1;
      if (field === 'inputFields') return isInputObjectType(type) ? listOf('__InputValue', Object.values(type.getFields())) : 1;
      if (field === 'ofType') return typeOrNull(isListType(type) || isNonNullType(type) ? (type.ofType as object) : null);
      return 1;
    }
    case '__Field':
      if (field === 'args') return listOf('__InputValue', (entity as { args: readonly object[] }).args);
      if (field === 'type') return typeOrNull((entity as { type: object }).type);
      return 1;
    case '__InputValue':
      if (field === 'type') return typeOrNull((entity as { type: object }).type);
      return 1;
    case '__Directive':
      if (field === 'args') return listOf('__InputValue', (entity as { args: readonly object[] }).args);
      if (field === 'locations') return 1 + (entity as { locations: readonly string[] }).locations.length;
      return 1;
    case '__EnumValue':
      return 1;
  }
}

/**
 * Values in the answer of `__schema { <selectionSet> }` (or `__type(name) { ... }` when `typeName`
 * is given): every object, list and leaf counted once. Infinity when the count would take more
 * than MAX_STEPS (such an answer is far past any limit anyway).
 */
export function introspectionAnswerSize(
  schema: GraphQLSchema,
  document: DocumentNode,
  selectionSet: SelectionSetNode | undefined,
  root: { schema: true } | { typeName: string },
): number {
  if (!selectionSet) return 1;
  const fragments = fragmentsByName(document);
  const memo = new Map<SelectionSetNode, Map<object, number>>();
  let steps = 0;

  const count = (set: SelectionSetNode, kind: IntrospectionKind, entity: object, spreading: Set<string>): number => {
    let byEntity = memo.get(set);
    const known = byEntity?.get(entity);
    if (known !== undefined) return known;
    if (++steps > MAX_STEPS) throw new TooLarge();
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += count(selection.selectionSet, kind, entity, spreading);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || spreading.has(name)) continue;
        spreading.add(name);
        total += count(fragment.selectionSet, kind, entity, spreading);
        spreading.delete(name);
      } else {
        const children = selection.name.value === '__typename' ? 1 : childrenOf(schema, kind, entity, selection.name.value);
        if (typeof children === 'number') total += children;
        else {
          // The list or the object itself, then each item (an object of its own in a list).
          total += 1;
          const { selectionSet } = selection;
          if (selectionSet)
            for (const item of children.items) total += (children.list ? 1 : 0) + count(selectionSet, children.kind, item, spreading);
        }
      }
      if (total > Number.MAX_SAFE_INTEGER) throw new TooLarge();
    }
    if (!byEntity) memo.set(set, (byEntity = new Map()));
    byEntity.set(entity, total);
    return total;
  };

  try {
    if ('schema' in root) return 1 + count(selectionSet, '__Schema', schema, new Set());
    const type = schema.getType(root.typeName);
    return type ? 1 + count(selectionSet, '__Type', type, new Set()) : 1;
  } catch (error) {
    if (error instanceof TooLarge) return Infinity;
    throw error;
  }
}

class TooLarge extends Error {}
