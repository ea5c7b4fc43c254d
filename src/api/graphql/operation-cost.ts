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
  GraphQLError,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_PAGE_SIZE } from '../../shared/pagination';
import { statementsOf } from '../../shared/schema/statements';
import { introspectionAnswerSize } from './introspection-cost';
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

/** List fields cost their page size times what each item selects. */
const itemsEstimator: ComplexityEstimator = ({ args, childComplexity, field }) => {
  if (!field.args.some((a) => a.name === 'limit')) return undefined;
  const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_PAGE_SIZE;
  return 1 + Math.max(limit, 1) * Math.max(childComplexity, 1);
};

/** Introspection costs the answer it builds, counted on the schema (introspection-cost.ts). */
const introspectionEstimator =
  (schema: GraphQLSchema, document: DocumentNode, counted: { values: number }): ComplexityEstimator =>
  ({ field, node, args }) => {
    let values: number;
    if (field.name === '__schema') values = introspectionAnswerSize(schema, document, node.selectionSet, { schema: true });
    else if (field.name === '__type')
      values = introspectionAnswerSize(schema, document, node.selectionSet, { typeName: String(args.name) });
    else return undefined;
    counted.values += values;
    return values;
  };

const statementsEstimator: ComplexityEstimator = ({ field, childComplexity }) => statementsOf(field) + childComplexity;

/**
 * Pricing walks the whole document twice with type information: for a full report (~400 fields)
 * that cost as much CPU as executing it. A price depends only on the document and on the
 * variables that set a `limit` or a @skip/@include condition, so it is kept per document (Apollo
 * hands out the same parsed document for the same query text) and those variables' values.
 */
const pricesByDocument = new WeakMap<DocumentNode, { pricedBy: string[]; prices: Map<string, OperationCost> }>();
/** Distinct operation names × price-setting variable values kept per document. */
const MAX_PRICES_PER_DOCUMENT = 64;

/** `operationCost`, remembered (see above). */
export function cachedOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationCost | undefined {
  let entry = pricesByDocument.get(document);
  if (!entry) {
    entry = { pricedBy: priceSettingVariables(document), prices: new Map() };
    pricesByDocument.set(document, entry);
  }
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
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): OperationCost | undefined {
  // Validation bounded the expanded selection (selection-shape-rule.ts); this bound only makes
  // sure no walk here can ever go past it.
  const options = { schema, query: document, operationName: operation.name?.value, variables, maxQueryNodes: 2 * MAX_EXPANDED_FIELDS };
  const introspection = { values: 0 };
  try {
    return {
      cost: getComplexity({
        ...options,
        estimators: [introspectionEstimator(schema, document, introspection), itemsEstimator, simpleEstimator({ defaultComplexity: 1 })],
      }),
      statements: getComplexity({ ...options, estimators: [statementsEstimator] }),
      rootFields: countRootFields(document, operation.selectionSet),
      introspection: introspection.values,
    };
  } catch (error) {
    if (error instanceof GraphQLError && /maximum allowed number of nodes/.test(error.message)) {
      return {
        cost: Infinity,
        statements: Infinity,
        rootFields: countRootFields(document, operation.selectionSet),
        introspection: Infinity,
      };
    }
    if (error instanceof GraphQLError) return undefined;
    throw error;
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
function countRootFields(document: DocumentNode, selectionSet: SelectionSetNode, depth = 0): number {
  if (depth > 10) return Infinity;
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      count += 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countRootFields(document, selection.selectionSet, depth + 1);
    } else {
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment && fragment.kind === Kind.FRAGMENT_DEFINITION) count += countRootFields(document, fragment.selectionSet, depth + 1);
    }
  }
  return count;
}
