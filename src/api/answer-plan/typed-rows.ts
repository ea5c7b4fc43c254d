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
  type GraphQLObjectType,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { fragmentsOf } from './operation-plan';

/** What the typed path reads of the plan's run (answer-operation.ts, `PlanRun`). */
type RowRun = { document: DocumentNode; operation: OperationDefinitionNode; context: unknown; variables: Record<string, unknown> };

const isBoolean = (type: TypeNode): boolean =>
  type.kind === Kind.NON_NULL_TYPE ? isBoolean(type.type) : type.kind === Kind.NAMED_TYPE && type.name.value === 'Boolean';

export class TypedRows {
  private readonly schemas = new Map<GraphQLObjectType, GraphQLSchema>();
  private readonly documents = new WeakMap<FieldNode, DocumentNode>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * The row's value as the typed path completes it (`data` null when a non-null field failed), by
   * a query on the row's type selecting what the field's nodes select. Only Boolean variables can
   * be read below a written field (its fields take no arguments: @skip and @include only).
   */
  async complete(
    type: GraphQLObjectType,
    row: unknown,
    nodes: readonly FieldNode[],
    run: RowRun,
    path: readonly (string | number)[],
  ): Promise<{ data: unknown; errors: readonly GraphQLError[] }> {
    let schema = this.schemas.get(type);
    if (!schema) this.schemas.set(type, (schema = new GraphQLSchema({ query: type, directives: this.schema.getDirectives() })));
    let document = this.documents.get(nodes[0]!);
    if (!document) {
      const query: OperationDefinitionNode = {
        kind: Kind.OPERATION_DEFINITION,
        operation: run.operation.operation,
        variableDefinitions: (run.operation.variableDefinitions ?? []).filter((definition) => isBoolean(definition.type)),
        selectionSet: { kind: Kind.SELECTION_SET, selections: nodes.flatMap((node) => node.selectionSet?.selections ?? []) },
      };
      document = { kind: Kind.DOCUMENT, definitions: [query, ...Object.values(fragmentsOf(run.document))] };
      this.documents.set(nodes[0]!, document);
    }
    const result = await execute({ schema, document, rootValue: row, contextValue: run.context, variableValues: run.variables });
    const errors = (result.errors ?? []).map(
      ({ message, nodes, path: below = [], originalError, extensions }) =>
        new GraphQLError(message, { nodes, path: [...path, ...below], originalError, extensions }),
    );
    return { data: result.data ?? null, errors };
  }
}
