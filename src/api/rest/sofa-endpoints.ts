/**
 * sofa-api derives, once at start-up, one endpoint per spec route (`createSofa` + `createSofaRouter`:
 * its method, path, status, and a handler that runs the field's operation and answers its data).
 * Each request calls its endpoint's handler directly, the route already matched
 * (api/request-route.ts) and its arguments validated (rest-router.ts): no Fetch `Request` is built
 * from the socket's request, nor a `Response` streamed back to it. Sofa would read parameters with
 * GraphQL's coercions, the contract's are FastAPI's: its handler is given a request with nothing to
 * read, and its `execute` hook runs the route's own document (rest-documents.ts) with the validated
 * variables.
 */
import {
  execute,
  isObjectType,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { answerWithPlan } from '../answer-plan/answer-operation';
import type { AnswerPlans } from '../answer-plan/answer-plans';
import type { OperationPlan } from '../answer-plan/operation-plan';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { RequestContext } from '../../features/context';
import { REST_BASE_PATH, REST_ROUTES, type RestRoute } from './routes';

/** One request's operation, as the front layer hands it to sofa. */
export interface RestExecution {
  context: RequestContext;
  document: DocumentNode;
  variables: Record<string, unknown>;
  /** the result, before sofa picks the field's data from it (the Link header reads the page) */
  onResult?: (result: ExecutionResult) => void;
}

/** The errors of an executed operation: sofa's error hook passes them on to the front layer's one error writer. */
export class ExecutionFailed extends Error {
  constructor(readonly errors: readonly unknown[]) {
    super('the REST route’s operation failed');
  }
}

/** The route's answer: its status and JSON body. */
export type SofaEndpoint = (execution: RestExecution) => Promise<{ status: number; body: string }>;

/** The request sofa's handler reads: no query string, no body, no path parameters (all validated before). */
type NothingToRead = { url: string; params: Record<string, string>; body: null };
type SofaHandler = (request: NothingToRead, serverContext: { execution: RestExecution }) => Promise<Response>;

type SofaOptions = Parameters<typeof createSofa>[0];

/** Sofa over the schema for the spec's routes, with the hooks given. */
export function createRoutesSofa(schema: GraphQLSchema, hooks: Pick<SofaOptions, 'context' | 'execute' | 'errorHandler'> = {}) {
  const options: SofaOptions = {
    schema,
    basePath: REST_BASE_PATH,
    routes: Object.fromEntries(REST_ROUTES.map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.status }])),
    ...hooks,
  };
  // `models` is not among sofa's typed options, but createSofa lets each option replace what it worked out.
  return createSofa(Object.assign(options, { models: typesWithFieldArguments(schema) }));
}

/** Sofa's endpoint for each of the spec's routes, each running its operation with `executeRoute`. */
export function sofaEndpoints(schema: GraphQLSchema, plans?: AnswerPlans): Map<RestRoute, SofaEndpoint> {
  const sofa = createRoutesSofa(schema, {
    context: ({ execution }: { execution: RestExecution }) => execution,
    execute: (async ({ contextValue }: { contextValue: RestExecution }) => {
      const result = await executeRoute(schema, contextValue, plans);
      contextValue.onResult?.(result);
      return result;
    }) as unknown as typeof execute,
    // Sofa calls this with an operation's errors, and again (from its catch) with what it throws.
    errorHandler: (errors) => {
      throw errors[0] instanceof ExecutionFailed ? errors[0] : new ExecutionFailed(errors as readonly GraphQLError[]);
    },
  });
  const derived = createSofaRouter(sofa).__routes;
  return new Map(
    REST_ROUTES.map((route) => {
      const endpoint = derived.find((d) => d.method === route.method && d.path === route.path);
      if (!endpoint) throw new Error(`sofa derived no endpoint for ${route.method} ${route.path} (${route.field})`);
      const handler = endpoint.handler as unknown as SofaHandler;
      const request: NothingToRead = { url: `${REST_BASE_PATH}${route.path}`, params: {}, body: null };
      return [
        route,
        async (execution: RestExecution) => {
          const response = await handler(request, { execution });
          return { status: response.status, body: await response.text() };
        },
      ];
    }),
  );
}

/**
 * Sofa derives for each route an operation selecting its field's whole type, with a variable for
 * every argument met on the way (229 for a report), and reads each one from every request: ~25 µs
 * of a fetch-one's CPU, for a selection the routes never run (they run their own documents). Sofa
 * selects only the `id` of a nested "model": naming as models the types whose fields take
 * arguments leaves the root field's own arguments as the only variables.
 */
export function typesWithFieldArguments(schema: GraphQLSchema): string[] {
  const roots = new Set<unknown>([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  return Object.values(schema.getTypeMap())
    .filter((type) => isObjectType(type) && !roots.has(type) && !type.name.startsWith('__'))
    .filter((type) => Object.values((type as GraphQLObjectType).getFields()).some((field) => field.args.length > 0))
    .map((type) => type.name);
}

/** A route's answer plan, beside its document: planned once (its selection holds no @skip or @include). */
const routePlans = new WeakMap<DocumentNode, OperationPlan | undefined>();

/**
 * A route's operation: by its answer plan (api/answer-plan: a report or a page written by
 * PostgreSQL), the typed path for what the plan hands over and for the other routes. The route's
 * arguments were validated before (rest-router.ts).
 */
async function executeRoute(schema: GraphQLSchema, execution: RestExecution, plans?: AnswerPlans): Promise<ExecutionResult> {
  const { document, variables, context } = execution;
  const operation = document.definitions[0] as OperationDefinitionNode;
  if (plans && !routePlans.has(document)) routePlans.set(document, plans.plan(document, operation, variables));
  const plan = routePlans.get(document);
  if (!plans || !plan) return executeCompiled(schema, document, variables, context);
  return answerWithPlan(plan, {
    document,
    operation,
    variables,
    context,
    argumentsChecked: true,
    rows: plans.rows,
    onAnswered: plans.onAnswered,
    typed: (typed) => executeCompiled(schema, typed.document, variables, context),
  });
}

/**
 * A route runs one fixed document (rest-documents.ts), so it is compiled once (graphql-jit) into a
 * function that resolves and completes exactly its selection, same schema and resolvers, instead
 * of graphql-js walking the document field by field on every request.
 */
const compiled = new WeakMap<DocumentNode, CompiledQuery>();

async function executeCompiled(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  context: RequestContext,
): Promise<ExecutionResult> {
  let query = compiled.get(document);
  if (!query) {
    const result = compileQuery(schema, document);
    if (!isCompiledQuery(result)) return execute({ schema, document, variableValues: variables, contextValue: context });
    query = result;
    compiled.set(document, query);
  }
  return (await query.query(undefined, context, variables)) as ExecutionResult;
}
