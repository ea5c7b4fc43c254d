/**
 * The typed path for one row the plan handed over (its JSON held a value PostgreSQL does not
 * write as graphql-js does): graphql-js completes that row alone, with the same types, resolvers
 * and selection as the whole document, on a schema whose query type is the row's type. Its errors
 * carry their full path in the answer.
 */
import {
  execute,
  GraphQLError,
  GraphQLSchema,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import type { RequestContext } from '../../features/context';

const isBoolean = (type: TypeNode): boolean =>
  type.kind === Kind.NON_NULL_TYPE ? isBoolean(type.type) : type.kind === Kind.NAMED_TYPE && type.name.value === 'Boolean';

export interface TypedRow {
  /** the row's value as the typed path completes it: null when a non-null field failed */
  data: unknown;
  errors: readonly GraphQLError[];
}

export class TypedRows {
  private readonly schemas = new Map<GraphQLObjectType, GraphQLSchema>();
  private readonly documents = new WeakMap<FieldNode, DocumentNode>();

  constructor(private readonly schema: GraphQLSchema) {}

  private schemaOf(type: GraphQLObjectType): GraphQLSchema {
    let rooted = this.schemas.get(type);
    if (!rooted) {
      rooted = new GraphQLSchema({ query: type, directives: this.schema.getDirectives() });
      this.schemas.set(type, rooted);
    }
    return rooted;
  }

  /**
   * A query on the row's type selecting what the field's nodes select. Only Boolean variables can
   * be read below a written field (its fields take no arguments: @skip and @include only).
   */
  private documentOf(nodes: readonly FieldNode[], operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>) {
    let document = this.documents.get(nodes[0]!);
    if (!document) {
      const query: OperationDefinitionNode = {
        kind: Kind.OPERATION_DEFINITION,
        operation: operation.operation,
        variableDefinitions: (operation.variableDefinitions ?? []).filter((definition) => isBoolean(definition.type)),
        selectionSet: { kind: Kind.SELECTION_SET, selections: nodes.flatMap((node) => node.selectionSet?.selections ?? []) },
      };
      document = { kind: Kind.DOCUMENT, definitions: [query, ...Object.values(fragments)] };
      this.documents.set(nodes[0]!, document);
    }
    return document;
  }

  async complete(
    type: GraphQLObjectType,
    row: unknown,
    nodes: readonly FieldNode[],
    operation: OperationDefinitionNode,
    fragments: Record<string, FragmentDefinitionNode>,
    variables: Record<string, unknown>,
    context: RequestContext,
    path: readonly (string | number)[],
  ): Promise<TypedRow> {
    const result = await execute({
      schema: this.schemaOf(type),
      document: this.documentOf(nodes, operation, fragments),
      rootValue: row,
      contextValue: context,
      variableValues: variables,
    });
    const errors = (result.errors ?? []).map(
      (error) =>
        new GraphQLError(error.message, {
          nodes: error.nodes,
          path: [...path, ...(error.path ?? [])],
          originalError: error.originalError,
          extensions: error.extensions,
        }),
    );
    return { data: result.data ?? null, errors };
  }
}
