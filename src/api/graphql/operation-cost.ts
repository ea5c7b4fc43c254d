/**
 * What an operation may cost, known before anything executes (the limits a `limit` argument sets
 * may come from variables, which validation rules do not see):
 * - `cost`: the items it may return times what each selects (a list costs its `limit`, default
 *   100, times its children): bounds the response and its CPU;
 * - `statements`: the SQL statements it may run (each field declares its own, relations batch
 *   per request): what the rate limit charges, and bounded per operation;
 * - `rootFields`: its top-level fields, aliases included.
 */
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../../shared/pagination';
import { statementsOf } from '../../shared/schema/statements';
import { introspectionAnswerSize } from './introspection-cost';
import { fragmentsByName } from './selection-shape';
import { MAX_EXPANDED_FIELDS } from './selection-shape-rule';

export const MAX_QUERY_COST = 50_000;
export const MAX_STATEMENTS_PER_OPERATION = 60;
export const MAX_ROOT_FIELDS = 20;

/** What an operation without a key (introspection only) may cost: 4x the standard introspection query's ~5,400. */
export const KEYLESS_MAX_COST = 20_000;

/** Introspection values per point charged: the standard introspection query costs 6 points. */
export const INTROSPECTION_VALUES_PER_POINT = 1_000;

export interface OperationCost {
  /** values it may return (Infinity: more than can be counted) */
  cost: number;
  statements: number;
  rootFields: number;
  /** of `cost`, the values of its introspection answer (exact: counted on the schema) */
  introspection: number;
}

/**
 * Pricing a full report cost as much CPU as executing it. A price depends only on the document and
 * on the variables that set a `limit` or a @skip/@include condition, so it is kept per document
 * (Apollo hands out the same parsed document for the same query text) and those variables' values,
 * at most MAX_PRICES_PER_DOCUMENT of them (operation names × values).
 */
const pricesByDocument = new WeakMap<DocumentNode, { pricedBy: string[]; prices: Map<string, OperationCost> }>();
const MAX_PRICES_PER_DOCUMENT = 64;

/** `operationCost`, remembered. */
export function cachedOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationCost | undefined {
  let entry = pricesByDocument.get(document);
  if (!entry) pricesByDocument.set(document, (entry = { pricedBy: priceSettingVariables(document), prices: new Map() }));
  // An omitted variable takes its default, an explicit null does not: they price differently.
  const key = JSON.stringify([
    operation.name?.value ?? null,
    ...entry.pricedBy.map((name) => (name in variables ? [variables[name]] : [])),
  ]);
  const known = entry.prices.get(key);
  if (known) return known;
  const cost = operationCost(schema, document, operation, variables);
  if (cost) {
    if (entry.prices.size >= MAX_PRICES_PER_DOCUMENT) entry.prices.clear();
    entry.prices.set(key, cost);
  }
  return cost;
}

/** The variables a price depends on: those inside `limit` arguments and @skip/@include conditions. */
function priceSettingVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: ArgumentNode | DirectiveNode) =>
    visit(node, {
      Variable(variable) {
        names.add(variable.name.value);
      },
    });
  visit(document, {
    Argument(argument) {
      if (argument.name.value === 'limit') collect(argument);
    },
    Directive(directive) {
      collect(directive);
    },
  });
  return [...names].sort();
}

/**
 * The operation's cost, or undefined when its variables do not coerce (nothing executes then:
 * Apollo's own coercion answers BAD_USER_INPUT naming the variable).
 *
 * The rules are graphql-query-complexity's with our estimators (a field costs 1 plus its children;
 * a list with `limit` costs 1 plus the limit times its children; introspection the answer it
 * builds), and its answers are the same (test/graphql/operation-cost.test.ts compares them on
 * generated documents). The walk is ours because the library walks every fragment spread again
 * (20 aliases spreading a report's whole `data` took 7 ms on the event loop): here each fragment
 * is priced once per operation and its price reused where spread.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationCost | undefined {
  const { coerced, errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (errors) return undefined;
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const pricing = new Pricing(schema, document, coerced);
  try {
    const price = root ? pricing.selectionSet(operation.selectionSet, root) : ZERO;
    // Validation bounded the expanded selection (selection-shape-rule.ts); this bound only makes
    // sure no price is ever taken of more than that.
    const { cost, statements, introspection } = price.nodes >= 2 * MAX_EXPANDED_FIELDS ? UNCOUNTABLE : price;
    return { cost, statements, rootFields: countRootFields(pricing.fragments, operation.selectionSet), introspection };
  } catch (error) {
    // An argument whose value does not coerce: graphql-js refuses the operation before it runs.
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

interface Price {
  cost: number;
  statements: number;
  introspection: number;
  /** selections walked, fragments expanded (graphql-query-complexity's node count) */
  nodes: number;
}

const ZERO: Price = { cost: 0, statements: 0, introspection: 0, nodes: 0 };
const UNCOUNTABLE: Price = { cost: Infinity, statements: Infinity, introspection: Infinity, nodes: Infinity };

const META_FIELDS = new Map([SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef].map((field) => [field.name, field]));

class Pricing {
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** each fragment's price on its type condition, taken once per operation */
  private readonly fragmentPrices = new Map<string, Price>();
  private readonly active = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly document: DocumentNode,
    private readonly variables: Record<string, unknown>,
  ) {
    this.fragments = fragmentsByName(document);
  }

  selectionSet(selectionSet: SelectionSetNode, type: GraphQLCompositeType): Price {
    const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
    const total = { cost: 0, statements: 0, introspection: 0, nodes: 0 };
    for (const selection of selectionSet.selections) {
      total.nodes += 1;
      if (!this.included(selection)) continue;
      let price: Price | undefined;
      if (selection.kind === Kind.FIELD) price = this.field(selection, fields);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) price = this.fragment(selection.name.value);
      else {
        const condition = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        if (condition && isCompositeType(condition)) price = this.selectionSet(selection.selectionSet, condition);
      }
      if (!price) continue;
      total.cost += price.cost;
      total.statements += price.statements;
      total.introspection += price.introspection;
      total.nodes += price.nodes;
    }
    return total;
  }

  private field(node: FieldNode, fields: Record<string, GraphQLField<unknown, unknown>>): Price | undefined {
    const name = node.name.value;
    const field = META_FIELDS.get(name) ?? fields[name];
    if (!field) return undefined;
    const args = getArgumentValues(field, node, this.variables);
    const type = getNamedType(field.type);
    const children = node.selectionSet && isCompositeType(type) ? this.selectionSet(node.selectionSet, type) : ZERO;
    const statements = statementsOf(field) + children.statements;
    if (field === SchemaMetaFieldDef || field === TypeMetaFieldDef) {
      const root = field === SchemaMetaFieldDef ? { schema: true as const } : { typeName: String(args.name) };
      const values = introspectionAnswerSize(this.schema, this.document, node.selectionSet, root);
      return { cost: values, statements, introspection: children.introspection + values, nodes: children.nodes };
    }
    const cost = field.args.some((a) => a.name === 'limit')
      ? 1 + Math.max(typeof args.limit === 'number' ? args.limit : DEFAULT_PAGE_SIZE, 1) * Math.max(children.cost, 1)
      : 1 + children.cost;
    return { cost, statements, introspection: children.introspection, nodes: children.nodes };
  }

  private fragment(name: string): Price | undefined {
    const known = this.fragmentPrices.get(name);
    if (known) return known;
    const fragment = this.fragments.get(name);
    // A spread inside its own fragment (validation refuses those) counts nothing, as the library's.
    if (!fragment || this.active.has(name)) return undefined;
    const type = this.schema.getType(fragment.typeCondition.name.value);
    if (!type || !isCompositeType(type)) return undefined;
    this.active.add(name);
    const price = this.selectionSet(fragment.selectionSet, type);
    this.active.delete(name);
    this.fragmentPrices.set(name, price);
    return price;
  }

  /** @skip and @include as graphql-js applies them; a condition that is not a boolean includes. */
  private included(selection: SelectionNode): boolean {
    for (const directive of selection.directives ?? []) {
      const name = directive.name.value;
      if (name !== 'skip' && name !== 'include') continue;
      const values = getDirectiveValues(name === 'skip' ? GraphQLSkipDirective : GraphQLIncludeDirective, selection, this.variables);
      if (typeof values?.if !== 'boolean') continue;
      if (name === 'skip' ? values.if : !values.if) return false;
    }
    return true;
  }
}

/**
 * The statements a fixed document (a REST route's) may run, whatever its variables: the same sum
 * as `statements` above, read from the document alone (it uses no fragments), so required
 * variables need no values.
 */
export function declaredStatements(schema: GraphQLSchema, document: DocumentNode): number {
  const typeInfo = new TypeInfo(schema);
  let statements = 0;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const field = typeInfo.getFieldDef();
        if (field) statements += statementsOf(field);
      },
    }),
  );
  return statements;
}

/** Top-level fields, through inline fragments and fragment spreads (each fragment counted where spread). */
function countRootFields(fragments: ReadonlyMap<string, FragmentDefinitionNode>, selectionSet: SelectionSetNode, depth = 0): number {
  if (depth > 10) return Infinity;
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += 1;
    else {
      const inner = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
      if (inner) count += countRootFields(fragments, inner.selectionSet, depth + 1);
    }
  }
  return count;
}
