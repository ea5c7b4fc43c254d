/**
 * Counts the values of an answer while it is built, against the request's AnswerBudget
 * (shared/answer-budget.ts), on both interfaces (REST routes run the same schema).
 *
 * Only the fields that can make an answer longer than its document says are counted: lists (each
 * item holds the fields its selection names, counted once per selection and kept) and JSON values
 * (their own members, counted once per object: the same value under a thousand aliases is walked
 * once, charged a thousand times). Everything else an answer holds is bounded by its document
 * (selection-shape-rule.ts) times the lists it sits in, which are counted.
 *
 * A field past the budget fails with a rejected promise, never a synchronous throw (see
 * argument-validation.ts: graphql-js 16 abandons a list's earlier promises otherwise), and no
 * resolver runs any more: whatever it would have loaded is not loaded.
 */
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  isScalarType,
  Kind,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { RequestContext } from '../../features/context';

const JSON_SCALAR = 'JSON';

const isJson = (type: GraphQLNamedType) => isScalarType(type) && type.name === JSON_SCALAR;

export function countAnswerValues(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const list = isListType(getNullableType(field.type));
      const item = getNamedType(field.type);
      if (!list && !isJson(item)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const valuesOf: (value: unknown, info: GraphQLResolveInfo) => number = !list
        ? (value) => jsonValues(value)
        : isJson(item)
          ? (value) => listValues(value, jsonValues)
          : isCompositeType(item)
            ? (value, info) => listValues(value, () => itemValues(info))
            : (value) => listValues(value, () => 1);
      field.resolve = (source, args, context: RequestContext, info) => {
        const budget = context.answerBudget;
        if (!budget) return resolve(source, args, context, info);
        if (budget.exceeded) return Promise.reject(budget.exceeded);
        const value = resolve(source, args, context, info);
        const charge = (resolved: unknown) => {
          const exceeded = budget.charge(valuesOf(resolved, info));
          return exceeded ? Promise.reject(exceeded) : resolved;
        };
        return isPromiseLike(value) ? Promise.resolve(value).then(charge) : charge(value);
      };
      answerCounters.add(field.resolve);
    }
  }
  return schema;
}

/** The resolvers `countAnswerValues` put on fields that had none (lists and JSON values of documents). */
const answerCounters = new WeakSet<object>();

export const isAnswerCounter = (resolve: unknown) => typeof resolve === 'function' && answerCounters.has(resolve);

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === 'function';

function listValues(value: unknown, valuesOfItem: (item: unknown) => number): number {
  if (!Array.isArray(value)) return 1;
  let values = 1;
  for (const item of value) values += valuesOfItem(item);
  return values;
}

/** Members of a JSON value, itself included; objects counted once each (their count is kept). */
const jsonCounts = new WeakMap<object, number>();

function jsonValues(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  let count = jsonCounts.get(value);
  if (count === undefined) {
    count = 1;
    for (const member of Array.isArray(value) ? value : Object.values(value)) count += jsonValues(member);
    jsonCounts.set(value, count);
  }
  return count;
}

/** Values one item of a list holds: the fields its selection names, inner lists and JSON counted apart. */
const itemCounts = new WeakMap<FieldNode, number>();

function itemValues(info: GraphQLResolveInfo): number {
  const first = info.fieldNodes[0]!;
  let count = itemCounts.get(first);
  if (count === undefined) {
    const type = getNamedType(info.returnType) as GraphQLCompositeType;
    count = 0;
    for (const node of info.fieldNodes) if (node.selectionSet) count += selectionValues(info, node.selectionSet, type);
    itemCounts.set(first, Math.max(count, 1));
  }
  return Math.max(count, 1);
}

/**
 * Fields a selection names on `type`, through fragments, and inside the objects it selects that
 * are neither lists nor JSON (those count themselves). Conditions (@skip, @include) are ignored:
 * an upper bound. Validation bounded the expanded selection, so the walk is bounded too.
 */
function selectionValues(info: GraphQLResolveInfo, selectionSet: SelectionSetNode, type: GraphQLCompositeType): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      count += 1;
      if (!selection.selectionSet || !(isObjectType(type) || isInterfaceType(type))) continue;
      const field = type.getFields()[selection.name.value];
      if (!field || isListType(getNullableType(field.type))) continue;
      count += selectionValues(info, selection.selectionSet, getNamedType(field.type) as GraphQLCompositeType);
    } else {
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : info.fragments[selection.name.value];
      if (!fragment) continue;
      const condition = fragment.typeCondition ? info.schema.getType(fragment.typeCondition.name.value) : type;
      if (condition && isCompositeType(condition)) count += selectionValues(info, fragment.selectionSet, condition);
    }
  }
  return count;
}
