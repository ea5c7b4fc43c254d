/**
 * Execution of the documents an organization sends again and again by graphql-jit: a client's
 * queries are a handful of fixed documents, and a compiled one resolves and completes exactly its
 * selection instead of graphql-js walking it field by field on every request (the REST routes'
 * documents are compiled the same way, rest/sofa-endpoints.ts). Same schema, same resolvers.
 *
 * Compiling blocks the event loop and keeps memory in proportion to the expanded fields (a
 * 48,000-field document blocked it 1-2 s and kept ~120 MB), so a document is compiled only when it
 * is cheap and worth it (COMPILATION): a query sent with a key (keyless introspection never is),
 * seen again by the same organization, narrow enough once fragments expand (counted without
 * expanding them), within the compile time budget, and charged to the organization. The cache is
 * bounded in estimated bytes, per organization and in total: an organization evicts its own
 * documents first, and the total bound evicts from the largest organization, so one tenant's
 * stream of new documents never evicts another's (N8). Mutations stay on graphql-js (they run
 * once each; createLead's serial semantics are graphql-js's).
 *
 * The compiled answer must be graphql-js's, byte for byte. graphql-jit differs where errors are
 * concerned (which errors of a nulled subtree it reports, their locations under @skip/@include), so
 * an answer of the compiled path that carries an error is thrown away and the document is run again
 * on graphql-js: errors are rare. Both paths report errors in document order (inDocumentOrder).
 *
 * Apollo Server takes another executor only through its gateway interface; this gateway serves the
 * one local schema and has nothing else of a gateway.
 */
import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import {
  defaultFieldResolver,
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  isNonNullType,
  isObjectType,
  Kind,
  locatedError,
  responsePathAsArray,
  type GraphQLResolveInfo,
  TypeInfo,
  ValidationContext,
  valueFromASTUntyped,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { inChildSpan } from '../../platform/tracing/tracing';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RequestContext } from '../../features/context';
import { databaseFailureOf } from '../../platform/db/failures';
import { expandedFieldCount, fragmentsByName } from './selection-shape';
import { answerWithPlan } from '../answer-plan/answer-operation';
import type { AnswerPlans } from '../answer-plan/answer-plans';
import type { OperationPlan } from '../answer-plan/operation-plan';

type Gateway = NonNullable<ApolloServerOptionsWithGateway<never>['gateway']>;
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;
type ExecutorRequest = Parameters<Executor>[0];

export const COMPILATION = {
  /** Compiled on the organization's n-th sighting of the document: one-off documents never are. */
  sightings: 2,
  /** Fields after fragments expand: the widest legitimate document (one report's whole, 322) is compiled, twice that is not. */
  maxExpandedFields: 400,
  /** Estimated heap kept per expanded field of a compiled document once run (~2.5 kB measured, rounded up). */
  bytesPerExpandedField: 3_000,
  /** Estimated heap of a document remembered as seen (its key and bookkeeping). */
  bytesPerSighting: 300,
  /** Estimated bytes kept for one organization's documents: ~16 one-report documents, ~250 pages of 20 fields. */
  organizationBytes: 16 * 1024 * 1024,
  /** Estimated bytes kept for all organizations together. */
  totalBytes: 128 * 1024 * 1024,
  /** Points of the organization's budget a compilation costs (a page request costs 2-3). */
  chargePoints: 1,
  /**
   * Milliseconds of compilation one organization may cause per minute, and all of them together:
   * distinct documents sent twice each could otherwise block the event loop for the others as often
   * as they like. Past either, documents run on graphql-js until the minute is over.
   */
  organizationCompileMsPerMinute: 250,
  totalCompileMsPerMinute: 1_000,
} as const;

export type CompilationLimits = { [K in keyof typeof COMPILATION]: number };

interface Entry {
  sightings: number;
  bytes: number;
  compiled?: CompiledQuery;
  /** Not to be compiled: too wide, or graphql-jit could not. */
  refused?: true;
  /** The document's answer plans (api/answer-plan), per values of its @skip/@include variables. */
  plans?: Map<string, OperationPlan | undefined>;
}

/** Answer plans kept per document: one per combination of @skip/@include values it was sent with, at most this many. */
const PLANS_PER_DOCUMENT = 8;

interface Partition {
  /** Least recently used first (Map keeps insertion order). */
  entries: Map<string, Entry>;
  bytes: number;
}

export type CompilationOutcome = 'compiled' | 'too_wide' | 'not_compilable' | 'over_time_budget';

/** Milliseconds spent compiling in the current minute, per organization and in total. */
class CompileTimeBudget {
  private windowStartedAt = 0;
  private total = 0;
  private readonly spent = new Map<string, number>();

  constructor(private readonly limits: CompilationLimits) {}

  allows(organizationId: string, now = performance.now()): boolean {
    if (now - this.windowStartedAt >= 60_000) {
      this.windowStartedAt = now;
      this.total = 0;
      this.spent.clear();
    }
    return (
      this.total < this.limits.totalCompileMsPerMinute && (this.spent.get(organizationId) ?? 0) < this.limits.organizationCompileMsPerMinute
    );
  }

  record(organizationId: string, milliseconds: number): void {
    this.total += milliseconds;
    this.spent.set(organizationId, (this.spent.get(organizationId) ?? 0) + milliseconds);
  }
}

export class CompiledDocuments {
  private readonly partitions = new Map<string, Partition>();
  private totalBytes = 0;
  readonly limits: CompilationLimits;
  private readonly compileTime: CompileTimeBudget;

  constructor(
    private readonly schema: GraphQLSchema,
    limits: Partial<CompilationLimits> = {},
    private readonly onCompilation?: (organizationId: string, outcome: CompilationOutcome) => void,
  ) {
    this.limits = { ...COMPILATION, ...limits };
    this.compileTime = new CompileTimeBudget(this.limits);
  }

  /**
   * The compiled form of a document this organization sent before under this key, compiling it
   * now if it is worth it; undefined: run it on graphql-js.
   */
  compiledFor(organizationId: string, key: string, document: DocumentNode, operationName: string | null): CompiledQuery | undefined {
    const { partition, entry } = this.entryOf(organizationId, key);
    entry.sightings += 1;
    if (!entry.compiled && !entry.refused && entry.sightings >= this.limits.sightings)
      this.compile(organizationId, partition, entry, document, operationName);
    this.evict(partition, key);
    return entry.compiled;
  }

  /**
   * The answer plan kept beside this organization's document for these @skip/@include values
   * (`conditions`), planned now when it is not; its estimated bytes count with the document's.
   */
  planFor(organizationId: string, key: string, conditions: string, plan: () => OperationPlan | undefined): OperationPlan | undefined {
    const { partition, entry } = this.entryOf(organizationId, key);
    if (entry.plans?.has(conditions)) return entry.plans.get(conditions);
    const planned = plan();
    if ((entry.plans?.size ?? 0) >= PLANS_PER_DOCUMENT) return planned;
    (entry.plans ??= new Map()).set(conditions, planned);
    const bytes = (planned?.bytes ?? 0) + this.limits.bytesPerSighting + conditions.length * 2;
    entry.bytes += bytes;
    this.resize(partition, bytes);
    this.evict(partition, key);
    return planned;
  }

  /** The organization's entry for this document, created when new, made the most recently used. */
  private entryOf(organizationId: string, key: string): { partition: Partition; entry: Entry } {
    let partition = this.partitions.get(organizationId);
    if (!partition) this.partitions.set(organizationId, (partition = { entries: new Map(), bytes: 0 }));
    let entry = partition.entries.get(key);
    if (entry) partition.entries.delete(key);
    else {
      entry = { sightings: 0, bytes: this.limits.bytesPerSighting + key.length * 2 };
      this.resize(partition, entry.bytes);
    }
    partition.entries.set(key, entry);
    return { partition, entry };
  }

  private compile(organizationId: string, partition: Partition, entry: Entry, document: DocumentNode, operationName: string | null): void {
    const refuse = (outcome: CompilationOutcome) => {
      entry.refused = true;
      this.onCompilation?.(organizationId, outcome);
    };
    const fields = expandedFieldCount(document);
    if (fields > this.limits.maxExpandedFields) return refuse('too_wide');
    if (!keysInSameOrder(document, operationName)) return refuse('not_compilable');
    // Not refused for good: the next sighting in another minute may compile it.
    if (!this.compileTime.allows(organizationId)) return this.onCompilation?.(organizationId, 'over_time_budget');
    const started = performance.now();
    // A span of its own when the request's span records (tracing off or unsampled: a property test).
    const result = inChildSpan('graphql.compile', { 'vr.graphql.expanded_fields': fields }, () =>
      compileQuery(this.schema, document, operationName ?? undefined),
    );
    this.compileTime.record(organizationId, performance.now() - started);
    // A document graphql-js validated but graphql-jit cannot compile stays on graphql-js.
    if (!isCompiledQuery(result)) return refuse('not_compilable');
    entry.compiled = result;
    const bytes = fields * this.limits.bytesPerExpandedField;
    this.resize(partition, bytes);
    entry.bytes += bytes;
    this.onCompilation?.(organizationId, 'compiled');
  }

  private resize(partition: Partition, delta: number): void {
    partition.bytes += delta;
    this.totalBytes += delta;
  }

  /** Over its own bound an organization loses its least recently used documents; over the total, the largest one does. */
  private evict(current: Partition, keep: string): void {
    while (current.bytes > this.limits.organizationBytes && this.dropOldest(current, current, keep));
    while (this.totalBytes > this.limits.totalBytes) {
      let largest: [string, Partition] | undefined;
      for (const candidate of this.partitions) if (!largest || candidate[1].bytes > largest[1].bytes) largest = candidate;
      if (!largest || !this.dropOldest(largest[1], current, keep)) break;
      if (largest[1].entries.size === 0) this.partitions.delete(largest[0]);
    }
  }

  /** Drops the partition's least recently used entry other than the one being served. */
  private dropOldest(partition: Partition, current: Partition, keep: string): boolean {
    for (const [key, entry] of partition.entries) {
      if (partition === current && key === keep) continue;
      partition.entries.delete(key);
      this.resize(partition, -entry.bytes);
      return true;
    }
    return false;
  }

  /** Estimated bytes kept (compiled documents and remembered sightings), all organizations or one. */
  bytes(organizationId?: string): number {
    return organizationId === undefined ? this.totalBytes : (this.partitions.get(organizationId)?.bytes ?? 0);
  }

  /** Documents compiled and kept, all organizations or one. */
  compiledCount(organizationId?: string): number {
    let count = 0;
    for (const [id, { entries }] of this.partitions)
      if (organizationId === undefined || id === organizationId) for (const entry of entries.values()) if (entry.compiled) count += 1;
    return count;
  }
}

const isConditional = (selection: SelectionNode) =>
  selection.directives?.some((d) => d.name.value === 'skip' || d.name.value === 'include') ?? false;

/**
 * graphql-jit places a response key where its first field node stands, even when @skip/@include
 * removes that node and the key comes from a later one; graphql-js places it at the later one. A
 * document where a conditional selection names a response key that appears again later in the same
 * selection (fragments read in place, fields of one key merged) could be answered with its keys in
 * another order: it stays on graphql-js. The walk is bounded: only documents of at most
 * COMPILATION.maxExpandedFields fields get here.
 */
function keysInSameOrder(document: DocumentNode, operationName: string | null): boolean {
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  const fragments = fragmentsByName(document);
  const check = (selectionSets: readonly SelectionSetNode[]): boolean => {
    const keys: { key: string; conditional: boolean }[] = [];
    const fields = new Map<string, SelectionSetNode[]>();
    const collect = (selectionSet: SelectionSetNode, conditional: boolean, depth: number): void => {
      for (const selection of selectionSet.selections) {
        const underCondition = conditional || isConditional(selection);
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          keys.push({ key, conditional: underCondition });
          const sub = fields.get(key) ?? [];
          if (selection.selectionSet) sub.push(selection.selectionSet);
          fields.set(key, sub);
        } else if (depth < 50) {
          const inner =
            selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments.get(selection.name.value)?.selectionSet;
          if (inner) collect(inner, underCondition, depth + 1);
        }
      }
    };
    for (const selectionSet of selectionSets) collect(selectionSet, false, 0);
    const conditionalSeen = new Set<string>();
    for (const { key, conditional } of keys) {
      if (conditionalSeen.has(key)) return false;
      if (conditional) conditionalSeen.add(key);
    }
    // A key only ever conditional is placed alike; one conditional then unconditional is not (returned above).
    for (const sub of fields.values()) if (sub.length > 0 && !check(sub)) return false;
    return true;
  };
  return check([operation.selectionSet]);
}

/**
 * Variables declared nullable but used where the argument (or directive argument) is non-null,
 * allowed by graphql-js's validation when that argument has a default: an explicit null then
 * fails in the middle of execution as an error without a code (an internal error to the client),
 * and graphql-jit ignores it for @skip/@include: such a null is refused first. Found once per operation.
 */
const nullRefusingVariables = new WeakMap<OperationDefinitionNode, Map<string, string>>();

function explicitNullErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  coerced: Record<string, unknown>,
): GraphQLError[] {
  let found = nullRefusingVariables.get(operation);
  if (!found) {
    nullRefusingVariables.set(operation, (found = new Map()));
    const context = new ValidationContext(schema, document, new TypeInfo(schema), () => undefined);
    const nullable = new Set(
      (operation.variableDefinitions ?? []).filter((d) => d.type.kind !== Kind.NON_NULL_TYPE).map((d) => d.variable.name.value),
    );
    for (const usage of context.getRecursiveVariableUsages(operation)) {
      const name = usage.node.name.value;
      if (nullable.has(name) && usage.type && isNonNullType(usage.type) && !found.has(name)) found.set(name, String(usage.type));
    }
  }
  return [...found]
    .filter(([name]) => coerced[name] === null)
    .map(
      ([name, type]) =>
        new GraphQLError(`Variable "$${name}" is used where a value of type "${type}" is required: it must not be null.`, {
          nodes: operation.variableDefinitions?.find((d) => d.variable.name.value === name),
          extensions: { code: 'BAD_USER_INPUT' },
        }),
    );
}

/**
 * graphql-jit's own variable parsing ignores the default of a non-null variable: the defaults of
 * the variables not sent are handed over as if sent (as JSON values, which graphql-jit coerces).
 */
function withDefaults(operation: OperationDefinitionNode, variables: Record<string, unknown> = {}): Record<string, unknown> {
  let merged: Record<string, unknown> | undefined;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (definition.defaultValue && !(name in variables)) {
      merged ??= { ...variables };
      merged[name] = valueFromASTUntyped(definition.defaultValue, variables);
    }
  }
  return merged ?? variables;
}

/**
 * The errors in document order of their paths (then list index), so the same document gets the
 * same answer whichever database answer came first. Each path is placed by the position of its
 * response keys among their siblings in the document (fragments read in place, each once per
 * selection, as graphql-js collects fields); errors without a path (request errors) come first.
 */
export function inDocumentOrder(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  errors: readonly GraphQLError[],
): readonly GraphQLError[] {
  if (errors.length < 2) return errors;
  const fragments = fragmentsByName(document);
  // Per path of response keys: the fields of that selection by response key, and each key's place
  // in collection order (looked up once per error and level: a map, not a search).
  const levels = new Map<string, { fields: Map<string, FieldNode[]>; order: Map<string, number> }>();
  const levelOf = (selectionSets: readonly SelectionSetNode[], cacheKey: string) => {
    let level = levels.get(cacheKey);
    if (level) return level;
    const { fields, order } = (level = { fields: new Map<string, FieldNode[]>(), order: new Map<string, number>() });
    const visited = new Set<string>();
    const collect = (selectionSet: SelectionSetNode) => {
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) {
          const responseKey = selection.alias?.value ?? selection.name.value;
          const same = fields.get(responseKey);
          if (same) same.push(selection);
          else {
            order.set(responseKey, order.size);
            fields.set(responseKey, [selection]);
          }
        } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
        else if (!visited.has(selection.name.value)) {
          visited.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          if (fragment) collect(fragment.selectionSet);
        }
      }
    };
    for (const selectionSet of selectionSets) collect(selectionSet);
    levels.set(cacheKey, level);
    return level;
  };
  const positionOf = (path: readonly (string | number)[] | undefined): number[] => {
    if (!path) return [];
    const position: number[] = [];
    let selectionSets: readonly SelectionSetNode[] = [operation.selectionSet];
    let cacheKey = '';
    for (const key of path) {
      if (typeof key === 'number') {
        position.push(key);
        continue;
      }
      const level = levelOf(selectionSets, cacheKey);
      position.push(level.order.get(key) ?? Number.MAX_SAFE_INTEGER);
      selectionSets = (level.fields.get(key) ?? []).flatMap((field) => (field.selectionSet ? [field.selectionSet] : []));
      cacheKey += `.${key}`;
    }
    return position;
  };
  const positions = new Map(errors.map((error) => [error, positionOf(error.path)]));
  return [...errors].sort((a, b) => {
    if (!a.path !== !b.path) return a.path ? 1 : -1;
    const pa = positions.get(a)!;
    const pb = positions.get(b)!;
    for (let i = 0; i < Math.min(pa.length, pb.length); i += 1) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
    return pa.length - pb.length;
  });
}

/**
 * Promises returned by resolvers, per request being run by graphql-js: when a field error nulls a
 * non-null parent (or all of `data`), graphql-js answers at once while the other fields still run,
 * and whether their errors are in the answer depends on timing. The answer is taken once they
 * have all settled.
 */
interface ResolverTracker {
  pending: Set<PromiseLike<unknown>>;
  /** Rejections of resolvers, with where: graphql-js drops those that reach a subtree already nulled. */
  failures: { error: unknown; info: GraphQLResolveInfo }[];
}

const trackers = new WeakMap<object, ResolverTracker>();

function trackResolvers(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve || resolve === defaultFieldResolver) continue;
      field.resolve = (source, args, context: object, info) => {
        const tracker = trackers.get(context);
        let result: unknown;
        try {
          result = resolve(source, args, context, info);
        } catch (error) {
          // Thrown at once: graphql-js drops it too when its subtree was already nulled.
          tracker?.failures.push({ error, info });
          throw error;
        }
        if (tracker && result instanceof Promise) {
          const settled: Promise<boolean> = result.then(
            () => tracker.pending.delete(settled),
            (error: unknown) => {
              tracker.failures.push({ error, info });
              return tracker.pending.delete(settled);
            },
          );
          tracker.pending.add(settled);
        }
        return result;
      };
    }
  }
}

/**
 * The errors a nulled subtree leaves in graphql-js's answer depend on which came first: of the
 * errors whose path lies below a `null` that replaced their parent (not the field itself), only
 * the first in document order is kept, for each such null; where `data` itself is null, for each
 * root field. The errors are in document order.
 */
function oneErrorPerNulledSubtree(data: unknown, errors: readonly GraphQLError[]): readonly GraphQLError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    if (!error.path || error.path.length === 0) return true;
    let value: unknown = data;
    let depth = 0;
    while (depth < error.path.length && value !== null && value !== undefined && typeof value === 'object') {
      value = (value as Record<string | number, unknown>)[error.path[depth]!];
      depth += 1;
    }
    if (depth === error.path.length) return true;
    // `value` is null at error.path[0..depth). Data itself null (a non-null root field failed):
    // each root field is executed on its own, so each keeps its first error.
    const nulledAt = JSON.stringify(error.path.slice(0, Math.max(depth, 1)));
    if (seen.has(nulledAt)) return false;
    seen.add(nulledAt);
    return true;
  });
}

export interface CompiledExecutionOptions {
  /** Prometheus registry for the cache's size and the compilations (none: not measured). */
  registry?: Registry;
  /** Charges a compilation to the organization (its budget); failures are ignored. */
  chargeCompilation?: (organizationId: string, points: number) => Promise<unknown>;
  limits?: Partial<CompilationLimits>;
  /** The answer plans: root fields written by PostgreSQL (api/answer-plan); absent: every field typed. */
  plans?: AnswerPlans;
}

/**
 * graphql-jit's errors imitate graphql-js's but leave `extensions` undefined, which Apollo reads as
 * an internal error whatever the resolver threw: give Apollo graphql-js's own, the cause kept.
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const normalized = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: error.extensions ?? undefined,
  });
  if (error.locations) Object.assign(normalized, { locations: error.locations });
  return normalized;
}

const documentKey = (request: ExecutorRequest) => `${request.queryHash}:${request.operationName ?? ''}`;

export function compiledExecutionGateway(schema: GraphQLSchema, options: CompiledExecutionOptions = {}): Gateway {
  trackResolvers(schema);
  const compilations = options.registry
    ? new Counter({
        name: 'vr_graphql_compilations_total',
        help: 'GraphQL documents considered for compilation by graphql-jit, by outcome (compiled, too_wide, not_compilable, over_time_budget).',
        labelNames: ['outcome'] as const,
        registers: [options.registry],
      })
    : undefined;
  const documents = new CompiledDocuments(schema, options.limits, (organizationId, outcome) => {
    compilations?.inc({ outcome });
    if (outcome === 'compiled') void options.chargeCompilation?.(organizationId, COMPILATION.chargePoints).catch(() => undefined);
  });
  if (options.registry) {
    new Gauge({
      name: 'vr_graphql_compiled_documents_bytes',
      help: 'Estimated heap kept by compiled GraphQL documents and remembered sightings (bounded per organization and in total).',
      registers: [options.registry],
      collect() {
        this.set(documents.bytes());
      },
    });
    new Gauge({
      name: 'vr_graphql_compiled_documents',
      help: 'GraphQL documents kept compiled by graphql-jit.',
      registers: [options.registry],
      collect() {
        this.set(documents.compiledCount());
      },
    });
  }

  const runOnGraphqlJs = async (request: ExecutorRequest, operation?: OperationDefinitionNode): Promise<ExecutionResult> => {
    const context = request.context as object;
    const tracker: ResolverTracker = { pending: new Set(), failures: [] };
    trackers.set(context, tracker);
    try {
      const result = await execute({
        schema,
        document: request.document,
        contextValue: request.context,
        variableValues: request.request.variables ?? {},
        // The client's own operationName: Apollo's is null when it names no operation of the document.
        operationName: request.request.operationName,
      });
      while (tracker.pending.size > 0) await Promise.all([...tracker.pending]);
      if (!result.errors || !operation) return result;
      // Every resolver's error, those graphql-js dropped included, so that which one stands for a
      // nulled subtree does not depend on which came first.
      const known = new Set(result.errors.map((error) => error.originalError ?? error));
      const dropped = tracker.failures
        .filter(({ error }) => !known.has(error as Error))
        .map(({ error, info }) => locatedError(error, info.fieldNodes, responsePathAsArray(info.path)));
      const errors = inDocumentOrder(request.document, operation, [...result.errors, ...dropped]);
      return { ...result, errors: oneErrorPerNulledSubtree(result.data, errors) };
    } finally {
      trackers.delete(context);
    }
  };

  const executor: Executor = async (request) => {
    // No operation when operationName names none in the document: graphql-js answers that below.
    const operation = request.operation as OperationDefinitionNode | undefined;
    if (!operation) return runOnGraphqlJs(request);
    // Variables are judged by graphql-js first: its errors name the variable definition, which is
    // what makes Apollo answer them 400 BAD_USER_INPUT (graphql-jit's do not).
    const { coerced, errors } = getVariableValues(schema, operation.variableDefinitions ?? [], request.request.variables ?? {});
    if (errors) return { errors };
    const nullErrors = explicitNullErrors(schema, request.document, operation, coerced);
    if (nullErrors.length > 0) return { errors: nullErrors };
    const context = request.context as RequestContext;
    const { plans } = options;
    const organizationId = context.principal?.organizationId;
    if (!plans || organizationId === undefined) return executeOperation(request, operation);
    const conditions = plans.conditionsOf(request.document, coerced);
    const plan = documents.planFor(organizationId, documentKey(request), conditions, () =>
      plans.plan(request.document, operation, coerced),
    );
    if (!plan) return executeOperation(request, operation);
    const result = await answerWithPlan(plan, {
      document: request.document,
      operation,
      variables: coerced,
      context,
      argumentsChecked: false,
      rows: plans.rows,
      onAnswered: plans.onAnswered,
      typed: ({ document, operation, suffix }) =>
        executeOperation({ ...request, document, queryHash: `${request.queryHash}${suffix}`, operation }, operation),
    });
    if (!result.errors) return result;
    return { ...result, errors: oneErrorPerNulledSubtree(result.data, inDocumentOrder(request.document, operation, result.errors)) };
  };

  const executeOperation = async (request: ExecutorRequest, operation: OperationDefinitionNode): Promise<ExecutionResult> => {
    const organizationId = (request.context as RequestContext).principal?.organizationId;
    const compiled =
      operation.operation === 'query' && organizationId !== undefined
        ? documents.compiledFor(organizationId, documentKey(request), request.document, request.operationName)
        : undefined;
    if (compiled) {
      const variables = withDefaults(operation, request.request.variables);
      const result = (await compiled.query(undefined, request.context, variables)) as ExecutionResult;
      // Errors are where graphql-jit's answer may differ from graphql-js's: graphql-js answers them.
      // Not the database being away: that answer is a 503 whichever executor met it, and running
      // the document again would only send its statements to a database that just failed them.
      if (!result.errors) return result;
      // Nor an answer that outgrew its budget: it is refused whole (plugins/answer-too-large.ts).
      if (
        (request.context as RequestContext).answerBudget?.exceeded ||
        result.errors.some((error) => databaseFailureOf(error.originalError ?? error))
      )
        return { ...result, errors: result.errors.map(asGraphqlJsError) };
    }
    return runOnGraphqlJs(request, operation);
  };
  return {
    load: async () => ({ executor }),
    onSchemaLoadOrUpdate: (callback) => {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    stop: async () => undefined,
  };
}
