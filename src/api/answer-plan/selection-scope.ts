/**
 * What collecting a selection needs besides its nodes, as graphql-js's executor has it: one per
 * operation, passed whole to the planner's writers and projections.
 */
import type { FieldNode, FragmentDefinitionNode, GraphQLObjectType, GraphQLSchema } from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';

export interface SelectionScope {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/** The members `nodes` select of `type`, by response key, in the answer's order (graphql-js's collection). */
export function subfieldsOf(
  scope: SelectionScope,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): Map<string, readonly FieldNode[]> {
  return collectSubfields(scope.schema, scope.fragments, scope.variables, type, nodes);
}
