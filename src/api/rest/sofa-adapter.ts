/**
 * sofa-api turns the GraphQL operations into the /public routes. The front layer
 * (rest-router.ts) has already matched the route, read the body and validated the arguments, so
 * sofa is handed a request with nothing left to parse (no query string, no body, canonical path
 * parameters) and, through `execute`, runs the route's own document with the validated variables.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { execute, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { useSofa } from 'sofa-api';
import type { RequestContext } from '../../features/context';
import { logger } from '../../platform/logger';
import { INTERNAL_ERROR, restErrorFromExecution, type RestErrorResponse } from './rest-errors';
import { fieldNameOf, locationOf, REST_BASE_PATH, REST_ROUTES, type RestRoute } from './routes';

/** What the front layer hands to sofa for one request. */
export interface RestExecution {
  route: RestRoute;
  context: RequestContext;
  document: DocumentNode;
  variables: Record<string, unknown>;
  /** the `Link` header value of the page after `cursor` */
  nextLink: (cursor: string) => string;
  /** where the Link header goes (sofa writes the body) */
  response: ServerResponse;
}

export type RequestWithExecution = IncomingMessage & { restExecution?: RestExecution };

/** sofa's error handler sees only the errors: the answer is decided in `execute`, where the request is known. */
const answers = new WeakMap<readonly GraphQLError[], RestErrorResponse>();

export function sofaRouter(schema: GraphQLSchema) {
  return useSofa({
    schema,
    basePath: REST_BASE_PATH,
    routes: Object.fromEntries(REST_ROUTES.map((r) => [r.field, { method: r.method, path: r.path, responseStatus: r.status }])),
    context: ({ req }: { req: RequestWithExecution }) => req.restExecution!,
    execute: (async (args: ExecutionArgs) => {
      const { route, context, document, variables, nextLink, response } = args.contextValue as RestExecution;
      const result = await executeCompiled(schema, document, variables, context);
      const page = result.data?.[fieldNameOf(route)] as { next_cursor?: unknown } | null | undefined;
      if (typeof page?.next_cursor === 'string') response.setHeader('link', nextLink(page.next_cursor));
      if (result.errors)
        answers.set(
          result.errors,
          restErrorFromExecution(result.errors, (name) => locationOf(route, name), context.log),
        );
      return result;
    }) as typeof execute,
    errorHandler: (errors) => {
      const answer = answers.get(errors as readonly GraphQLError[]) ?? unexpected(errors);
      return new globalThis.Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': 'application/json', ...answer.headers },
      }) as never;
    },
  });
}

/**
 * A route runs one fixed document (rest-documents.ts), so it is compiled once (graphql-jit) into a
 * function that resolves and completes exactly its selection, same schema and resolvers, instead
 * of graphql-js walking the ~400 fields of a report's document on every request.
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

/** An error sofa raised itself, before `execute` (it has nothing left to parse, so it should not). */
function unexpected(errors: readonly unknown[]): RestErrorResponse {
  logger.error({ err: errors[0] }, 'sofa failed before executing a REST route');
  return INTERNAL_ERROR;
}
