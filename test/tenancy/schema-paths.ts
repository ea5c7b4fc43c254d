/**
 * Queries derived from the introspected schema: a path from a root field to every object type,
 * and for every relation (an object-typed field of any reachable type) one query that reaches it
 * from A's data. A new type or relation is swept without touching the tests.
 */
import {
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  getNullableType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

/** Pages along a path are small (the cost budget multiplies them), yet larger than A's dealerships. */
const PATH_LIMIT = 10;
const SELECTION_LIMIT = 5;

export interface Step {
  field: GraphQLField<unknown, unknown>;
  args: string;
}

/** `(limit: 10, report_id: "…")`: required arguments from `requiredValues`, pages kept small. */
export function literalArguments(
  field: GraphQLField<unknown, unknown>,
  requiredValues: Record<string, string>,
  limit = PATH_LIMIT,
): string {
  const parts: string[] = [];
  for (const arg of field.args) {
    if (arg.name === 'limit') parts.push(`limit: ${limit}`);
    else if (isNonNullType(arg.type) && arg.defaultValue === undefined) {
      const value = requiredValues[arg.name];
      if (value === undefined) throw new Error(`${field.name}(${arg.name}:) needs a value in the tenancy sweep's required arguments`);
      parts.push(`${arg.name}: ${JSON.stringify(value)}`);
    }
  }
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

/** Breadth-first from the Query fields: the shortest path to every reachable object type. */
export function pathsToTypes(schema: GraphQLSchema, requiredValues: Record<string, string>): Map<string, Step[]> {
  const paths = new Map<string, Step[]>();
  const queue: { type: GraphQLObjectType; steps: Step[] }[] = [];
  for (const field of Object.values(schema.getQueryType()!.getFields())) {
    const type = getNamedType(field.type);
    if (isObjectType(type) && !paths.has(type.name)) {
      const steps = [{ field, args: literalArguments(field, requiredValues) }];
      paths.set(type.name, steps);
      queue.push({ type, steps });
    }
  }
  while (queue.length > 0) {
    const { type, steps } = queue.shift()!;
    for (const field of Object.values(type.getFields())) {
      const next = getNamedType(field.type);
      if (!isObjectType(next) || paths.has(next.name)) continue;
      const nextSteps = [...steps, { field, args: literalArguments(field, requiredValues) }];
      paths.set(next.name, nextSteps);
      queue.push({ type: next, steps: nextSteps });
    }
  }
  return paths;
}

/** Object types of the schema that no Query path reaches (mutation results, say). */
export function unreachableTypes(schema: GraphQLSchema, paths: Map<string, Step[]>): string[] {
  const roots = new Set([schema.getQueryType()?.name, schema.getMutationType()?.name, schema.getSubscriptionType()?.name]);
  return Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && !type.name.startsWith('__') && !roots.has(type.name) && !paths.has(type.name))
    .map((type) => type.name);
}

/** Every leaf field (ids, organization_id, names) and, `depth` levels down, the objects under it. */
export function selectionOf(type: GraphQLObjectType, depth: number): string {
  const parts: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) parts.push(field.name);
    else if (isObjectType(named) && depth > 0)
      parts.push(`${field.name}${literalArguments(field, {}, SELECTION_LIMIT)} { ${selectionOf(named, depth - 1)} }`);
  }
  // a type with objects only (ReportState) at the last level: still a valid selection
  return parts.length > 0 ? parts.join(' ') : '__typename';
}

export function nest(steps: Step[], inner: string): string {
  return steps.reduceRight((body, step) => `${step.field.name}${step.args} { ${body} }`, inner);
}

export interface RelationQuery {
  /** `Report.dealership` */
  relation: string;
  query: string;
}

/** One query per relation of every reachable type, through the shortest path to that type. */
export function relationQueries(schema: GraphQLSchema, requiredValues: Record<string, string>): RelationQuery[] {
  const paths = pathsToTypes(schema, requiredValues);
  const queries: RelationQuery[] = [];
  for (const [typeName, steps] of paths) {
    const type = schema.getType(typeName) as GraphQLObjectType;
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (!isObjectType(target)) continue;
      const relation = `${field.name}${literalArguments(field, requiredValues)} { ${selectionOf(target, 1)} }`;
      queries.push({ relation: `${typeName}.${field.name}`, query: `{ ${nest(steps, relation)} }` });
    }
  }
  return queries;
}

/** Fields that take arguments, on every reachable type (root fields included), with their path. */
export function fieldsWithArguments(
  schema: GraphQLSchema,
  requiredValues: Record<string, string>,
): { owner: string; field: GraphQLField<unknown, unknown>; parent: Step[] }[] {
  const out: { owner: string; field: GraphQLField<unknown, unknown>; parent: Step[] }[] = [];
  for (const field of Object.values(schema.getQueryType()!.getFields())) {
    if (field.args.length > 0) out.push({ owner: schema.getQueryType()!.name, field, parent: [] });
  }
  for (const [typeName, steps] of pathsToTypes(schema, requiredValues)) {
    for (const field of Object.values((schema.getType(typeName) as GraphQLObjectType).getFields())) {
      if (field.args.length > 0) out.push({ owner: typeName, field, parent: steps });
    }
  }
  return out;
}

/** A page type: an object with a list field `items`. */
export function isPage(type: unknown): type is GraphQLObjectType {
  if (!isObjectType(type)) return false;
  const items = type.getFields().items;
  return !!items && isListType(getNullableType(items.type));
}
