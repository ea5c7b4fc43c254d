/**
 * An operation's answer plan: for each root field, how it is answered. A `report` or `reports`
 * field whose selection PostgreSQL writes (object-sql.ts) is answered by its one statement, which
 * returns the JSON text of the report or of each item of the page (the page's envelope is written
 * here); every other root field goes to the typed path, on a document of those fields alone.
 * Decided once per document, operation and values of @skip/@include variables, and kept beside
 * the compiled documents (graphql/compiled-execution.ts; a REST route's with it).
 */
import {
  getNamedType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields } from 'graphql/execution/collectFields';
import { getMetadataStorage } from 'type-graphql';
import { PAGE_ROW_COLUMNS } from '../../features/reports/report-query';
import { writtenObject, type ColumnCatalog, type SchemaFacts, type WrittenObject } from './object-sql';
import { subfieldsOf, type SelectionScope } from './selection-scope';
import { fragmentsByName } from '../graphql/selection-shape';

/** A document of some of an operation's root fields, for the typed path. */
export interface TypedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** tells this document apart from the whole one in the compiled documents' cache */
  suffix: string;
}

/** A member of a page's envelope, written here: its response key and what it is. */
export type EnvelopeMember =
  | {
      key: string;
      kind: 'items' | 'limit' | 'offset' | 'total' | 'next_cursor' | 'endCursor' | 'hasNextPage' | 'typename';
      typename?: string;
    }
  | { key: string; kind: 'pageInfo'; members: EnvelopeMember[] };

interface RootBase {
  key: string;
  nodes: readonly FieldNode[];
  field: GraphQLField<unknown, unknown>;
  /** the object's SQL, the key's organization bound per request */
  written: WrittenObject;
  /** this field alone, for the typed path when the whole field is handed over */
  alone: TypedOperation;
}

export type PlannedRoot =
  | (RootBase & { kind: 'report'; type: GraphQLObjectType })
  | (RootBase & { kind: 'reports'; envelope: EnvelopeMember[]; itemType: GraphQLObjectType; itemNodes: readonly FieldNode[] });

export interface OperationPlan {
  /** the root fields' response keys, in the answer's order */
  keys: readonly string[];
  planned: readonly PlannedRoot[];
  /** the other root fields, answered by the typed path */
  typed?: TypedOperation;
  /** estimated heap the plan keeps */
  bytes: number;
}

/** What the planner reads once per schema: the types' SQL declarations, the tables' columns, the fields with resolvers. */
export function schemaFacts(schema: GraphQLSchema, columns: ColumnCatalog): SchemaFacts {
  const storage = getMetadataStorage();
  const typeNames = new Map<unknown, string>(storage.objectTypes.map((type) => [type.target, type.name]));
  const resolved = new Set<string>();
  for (const resolver of storage.fieldResolvers) {
    const typeName = typeNames.get(resolver.getObjectType?.());
    if (typeName) resolved.add(`${typeName}.${resolver.schemaName}`);
  }
  return { schema, columns, resolved };
}

export const fragmentsOf = (document: DocumentNode): Record<string, FragmentDefinitionNode> =>
  Object.fromEntries(fragmentsByName(document));

/** The operation with only the root fields of these response keys (root selections are plain fields here). */
function withRootKeys(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  keys: ReadonlySet<string>,
  suffix: string,
): TypedOperation {
  const selections = operation.selectionSet.selections.filter(
    (selection) => selection.kind === Kind.FIELD && keys.has(selection.alias?.value ?? selection.name.value),
  );
  const derived: OperationDefinitionNode = { ...operation, selectionSet: { ...operation.selectionSet, selections } };
  return {
    document: { ...document, definitions: document.definitions.map((d) => (d === operation ? derived : d)) },
    operation: derived,
    suffix,
  };
}

/** The envelope of a page as written here, or undefined when it selects something else (or `items` twice). */
function envelopeOf(
  scope: SelectionScope,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): { members: EnvelopeMember[]; items?: readonly FieldNode[] } | undefined {
  const members: EnvelopeMember[] = [];
  let items: readonly FieldNode[] | undefined;
  for (const [key, fieldNodes] of subfieldsOf(scope, type, nodes)) {
    const name = fieldNodes[0]!.name.value;
    if (fieldNodes.some((node) => node.arguments?.length)) return undefined;
    if (name === '__typename') members.push({ key, kind: 'typename', typename: type.name });
    else if (name === 'items') {
      if (items) return undefined;
      items = fieldNodes;
      members.push({ key, kind: 'items' });
    } else if (name === 'pageInfo') {
      const pageInfo = type.getFields().pageInfo;
      const infoType = pageInfo && getNamedType(pageInfo.type);
      if (!isObjectType(infoType)) return undefined;
      const inner = envelopeOf(scope, infoType, fieldNodes);
      if (!inner || inner.items) return undefined;
      members.push({ key, kind: 'pageInfo', members: inner.members });
    } else if (['limit', 'offset', 'total', 'next_cursor', 'endCursor', 'hasNextPage'].includes(name)) {
      members.push({ key, kind: name as 'limit' });
    } else return undefined;
  }
  return { members, items };
}

/** The answer plan of an operation; undefined when none of its root fields is written by PostgreSQL. */
export function planOperation(
  facts: SchemaFacts,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationPlan | undefined {
  const query = facts.schema.getQueryType();
  if (operation.operation !== 'query' || !query) return undefined;
  if (operation.selectionSet.selections.some((selection) => selection.kind !== Kind.FIELD)) return undefined;
  const scope: SelectionScope = { schema: facts.schema, fragments: fragmentsOf(document), variables };
  const rootFields = collectFields(scope.schema, scope.fragments, scope.variables, query, operation.selectionSet);
  const planned: PlannedRoot[] = [];
  const typedKeys = new Set<string>();
  let bytes = 1_000;
  for (const [key, nodes] of rootFields) {
    const root = planRoot(facts, scope, document, operation, query, key, nodes);
    if (root) {
      planned.push(root);
      bytes += 2 * (root.written.json.length + root.written.bound.length + root.written.from.length) + 500;
    } else typedKeys.add(key);
  }
  if (planned.length === 0) return undefined;
  return {
    keys: [...rootFields.keys()],
    planned,
    ...(typedKeys.size > 0 && { typed: withRootKeys(document, operation, typedKeys, ':typed') }),
    bytes,
  };
}

function planRoot(
  facts: SchemaFacts,
  scope: SelectionScope,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  query: GraphQLObjectType,
  key: string,
  nodes: readonly FieldNode[],
): PlannedRoot | undefined {
  const field = query.getFields()[nodes[0]!.name.value];
  const type = field && getNamedType(field.type);
  if (!field || !isObjectType(type)) return undefined;
  const alone = () => withRootKeys(document, operation, new Set([key]), `:${key}`);
  if (field.name === 'report') {
    const written = writtenObject(facts, scope, type, 'r', nodes);
    return written && { kind: 'report', key, nodes, field, type, written, alone: alone() };
  }
  if (field.name !== 'reports') return undefined;
  const envelope = envelopeOf(scope, type, nodes);
  const itemsField = type.getFields().items;
  const itemType = itemsField && getNamedType(itemsField.type);
  if (!envelope?.items || !isObjectType(itemType)) return undefined;
  const { members, items } = envelope;
  const written = writtenObject(facts, scope, itemType, 'p', items, PAGE_ROW_COLUMNS);
  return written && { kind: 'reports', key, nodes, field, envelope: members, itemType, itemNodes: items, written, alone: alone() };
}
