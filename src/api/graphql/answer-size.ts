/**
 * Counts the values of an answer while it is built, against the request's AnswerBudget
 * (shared/answer-budget.ts), on both interfaces (REST routes run the same schema). Only what can
 * make an answer longer than its document says is counted, where it enters: lists (each item holds
 * the fields its selection names), JSON values (their members), and a report's stored documents,
 * charged whole where the report hands them out (their values times the most times the selection
 * repeats any one of them, plus the fields it names): the ~400 typed fields inside get no resolver
 * of their own, which would cost ~10 % of a fetch-one's CPU. Everything else is bounded by its
 * document (selection-shape-rule.ts) times the lists it sits in, which are counted.
 *
 * A field past the budget fails with a rejected promise, never a synchronous throw (see
 * argument-validation.ts: graphql-js 16 abandons a list's earlier promises otherwise), and no
 * counted resolver runs any more: whatever it would have loaded is not loaded.
 */
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { RequestContext } from '../../features/context';

/** The report's fields that hand out a stored JSON document through typed fields. */
const STORED_DOCUMENTS: Record<string, readonly string[]> = { Report: ['data', 'state', 'real_costs'] };

const isJson = (type: GraphQLNamedType) => isScalarType(type) && type.name === 'JSON';

type ValuesOf = (value: unknown, info: GraphQLResolveInfo) => number;

export function countAnswerValues(schema: GraphQLSchema): GraphQLSchema {
  const documentTypes = storedDocumentTypes(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__') || documentTypes.has(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const valuesOf = counterFor(field, STORED_DOCUMENTS[type.name]?.includes(field.name) ?? false);
      if (valuesOf) count(field, valuesOf);
    }
  }
  return schema;
}

function counterFor(field: GraphQLField<unknown, unknown>, storedDocument: boolean): ValuesOf | undefined {
  const item = getNamedType(field.type);
  if (storedDocument) return (value, info) => jsonValues(value) * repetitions(info) + namedFields(info);
  if (!isListType(getNullableType(field.type))) return isJson(item) ? (value) => jsonValues(value) : undefined;
  if (isJson(item)) return (value) => listValues(value, jsonValues);
  if (isCompositeType(item)) return (value, info) => listValues(value, () => namedFields(info));
  return (value) => listValues(value, () => 1);
}

function count(field: GraphQLField<unknown, unknown>, valuesOf: ValuesOf): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  const counted: typeof resolve = (source, args, context, info) => {
    const budget = (context as RequestContext).answerBudget;
    if (!budget) return resolve(source, args, context, info);
    if (budget.exceeded) return Promise.reject(budget.exceeded);
    const value = resolve(source, args, context, info);
    const charge = (resolved: unknown) => {
      const exceeded = budget.charge(valuesOf(resolved, info));
      return exceeded ? Promise.reject(exceeded) : resolved;
    };
    return isPromiseLike(value) ? Promise.resolve(value).then(charge) : charge(value);
  };
  field.resolve = counted;
  answerCounters.add(counted);
}

/** The object types inside the stored documents (reachable from their fields). */
function storedDocumentTypes(schema: GraphQLSchema): Set<GraphQLObjectType> {
  const types = new Set<GraphQLObjectType>();
  const visit = (type: GraphQLNamedType) => {
    if (!isObjectType(type) || types.has(type)) return;
    types.add(type);
    for (const field of Object.values(type.getFields())) visit(getNamedType(field.type));
  };
  for (const [typeName, fields] of Object.entries(STORED_DOCUMENTS)) {
    const owner = schema.getType(typeName);
    if (!isObjectType(owner)) continue;
    for (const name of fields) {
      const field = owner.getFields()[name];
      if (field) visit(getNamedType(field.type));
    }
  }
  return types;
}

/** The resolvers `countAnswerValues` put on fields (lists, JSON values, stored documents). */
const answerCounters = new WeakSet<object>();

export const isAnswerCounter = (resolve: unknown) => typeof resolve === 'function' && answerCounters.has(resolve);

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

function listValues(value: unknown, valuesOfItem: (item: unknown) => number): number {
  if (!Array.isArray(value)) return 1;
  let values = 1;
  for (const item of value) values += valuesOfItem(item);
  return values;
}

/**
 * Members of a JSON value, itself included. A value a resolver hands out is walked once and its
 * count kept (the same value under a thousand aliases is charged a thousand times, walked once);
 * the objects inside it are not kept one by one (a WeakMap entry each cost ~9 times the walk).
 */
const jsonCounts = new WeakMap<object, number>();

function jsonValues(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  let count = jsonCounts.get(value);
  if (count === undefined) jsonCounts.set(value, (count = membersOf(value)));
  return count;
}

function membersOf(value: object): number {
  let count = 1;
  if (Array.isArray(value)) {
    for (const member of value as unknown[]) count += member !== null && typeof member === 'object' ? membersOf(member) : 1;
  } else {
    for (const key in value) {
      const member = (value as Record<string, unknown>)[key];
      count += member !== null && typeof member === 'object' ? membersOf(member) : 1;
    }
  }
  return count;
}

/**
 * What a selection makes of one object, worked out once per field of a document (kept by its
 * first node): `fields`, the fields it names, through fragments and into the objects it selects;
 * `repetitions`, the most times one value below can appear in the answer (two aliases of a field
 * repeat its value twice, and everything below it). Conditions (@skip, @include) are ignored: an
 * upper bound. Validation bounded the expanded selection, so the walk is bounded too.
 */
export interface SelectionShape {
  fields: number;
  repetitions: number;
}

const shapes = new WeakMap<FieldNode, SelectionShape>();

function shapeOf(info: GraphQLResolveInfo): SelectionShape {
  const first = info.fieldNodes[0]!;
  let shape = shapes.get(first);
  if (!shape) {
    const type = getNamedType(info.returnType);
    const sets = selectionSets(info.fieldNodes);
    shape = isCompositeType(type) && sets.length > 0 ? selectionShape(info, sets, type) : { fields: 0, repetitions: 1 };
    shapes.set(first, shape);
  }
  return shape;
}

export const selectionSets = (nodes: readonly FieldNode[]) => nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));

const namedFields = (info: GraphQLResolveInfo) => Math.max(shapeOf(info).fields, 1);
const repetitions = (info: GraphQLResolveInfo) => shapeOf(info).repetitions;

/** The shape of a selection of `type` (the answer planner bounds its answers with the same count). */
export function selectionShape(
  info: Pick<GraphQLResolveInfo, 'schema' | 'fragments'>,
  selectionSets: readonly SelectionSetNode[],
  type: GraphQLCompositeType,
): SelectionShape {
  let fields = 0;
  // Per field name: how many times the values below it can appear (each alias adds its own).
  const byName = new Map<string, number>();
  const walk = (selectionSet: SelectionSetNode, on: GraphQLCompositeType) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        let below = 1;
        const field = isObjectType(on) ? on.getFields()[selection.name.value] : undefined;
        const named = field && getNamedType(field.type);
        if (selection.selectionSet && named && isCompositeType(named)) {
          const inner = selectionShape(info, [selection.selectionSet], named);
          below = inner.repetitions;
          // A list's items count themselves (their field is counted where it resolves).
          if (!isListType(getNullableType(field.type))) fields += inner.fields;
        }
        byName.set(selection.name.value, (byName.get(selection.name.value) ?? 0) + below);
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : info.fragments[selection.name.value];
        if (!fragment) continue;
        const condition = fragment.typeCondition ? info.schema.getType(fragment.typeCondition.name.value) : on;
        if (condition && isCompositeType(condition)) walk(fragment.selectionSet, condition);
      }
    }
  };
  for (const selectionSet of selectionSets) walk(selectionSet, type);
  return { fields, repetitions: Math.max(1, ...byName.values()) };
}
