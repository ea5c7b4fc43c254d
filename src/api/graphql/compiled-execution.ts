/**
 * Execution of the documents this instance sees again and again by graphql-jit: a client's queries
 * are a handful of fixed documents, and a compiled one resolves and completes exactly its selection
 * instead of graphql-js walking it field by field on every request (the REST routes' documents
 * are compiled the same way, rest/sofa-adapter.ts). Same schema, same resolvers.
 *
 * Compiling costs milliseconds and memory, so a document is compiled on its second sighting only,
 * and at most MAX_COMPILED_DOCUMENTS are kept, the least recently used going first: a client sending
 * a new document each time pays graphql-js's price, never a compilation per request. Mutations stay
 * on graphql-js (they run once each; createLead's serial semantics are graphql-js's).
 *
 * Apollo Server takes another executor only through its gateway interface; this gateway serves the
 * one local schema and has nothing else of a gateway.
 */
import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import { execute, getVariableValues, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

type Gateway = NonNullable<ApolloServerOptionsWithGateway<never>['gateway']>;
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;

/** Documents kept compiled (and documents seen once, remembered to be recognised the second time). */
export const MAX_COMPILED_DOCUMENTS = 500;

interface Entry {
  sightings: number;
  compiled?: CompiledQuery;
}

export class CompiledDocuments {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly capacity = MAX_COMPILED_DOCUMENTS,
  ) {}

  /** The compiled form of a document seen before under this key, compiling it now if needed. */
  compiledFor(key: string, document: DocumentNode, operationName: string | null): CompiledQuery | undefined {
    const entry = this.entries.get(key) ?? { sightings: 0 };
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    entry.sightings += 1;
    if (!entry.compiled && entry.sightings >= 2) {
      const result = compileQuery(this.schema, document, operationName ?? undefined);
      // A document graphql-js validated but graphql-jit cannot compile stays on graphql-js.
      if (!isCompiledQuery(result)) {
        entry.sightings = Number.NEGATIVE_INFINITY;
        return undefined;
      }
      entry.compiled = result;
    }
    return entry.compiled;
  }

  get size(): number {
    return this.entries.size;
  }

  get compiledCount(): number {
    return [...this.entries.values()].filter((entry) => entry.compiled).length;
  }
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

export function compiledExecutionGateway(schema: GraphQLSchema, documents = new CompiledDocuments(schema)): Gateway {
  const executor: Executor = async (request) => {
    const variables = request.request.variables ?? {};
    // No operation when operationName names none in the document: graphql-js answers that below.
    const operation = request.operation as typeof request.operation | undefined;
    const compiled =
      operation?.operation === 'query'
        ? documents.compiledFor(`${request.queryHash}:${request.operationName ?? ''}`, request.document, request.operationName)
        : undefined;
    if (operation && compiled) {
      // Variables are judged by graphql-js first: its errors name the variable definition, which
      // is what makes Apollo answer them 400 BAD_USER_INPUT (graphql-jit's do not).
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
      if (coerced.errors) return { errors: coerced.errors };
      const result = (await compiled.query(undefined, request.context, variables)) as ExecutionResult;
      return result.errors ? { ...result, errors: result.errors.map(asGraphqlJsError) } : result;
    }
    return execute({
      schema,
      document: request.document,
      contextValue: request.context,
      variableValues: variables,
      // The client's own operationName: Apollo's is null when it names no operation of the document.
      operationName: request.request.operationName,
    });
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
