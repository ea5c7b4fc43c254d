/**
 * Validation of the selection's shape after fragments expand (selection-shape.ts): at most
 * MAX_EXPANDED_FIELDS fields and MAX_QUERY_DEPTH levels of nesting per operation, checked in time
 * linear in the document's text. graphql-depth-limit, used before, followed every spread of every
 * fragment: a document of nested fragments made it walk an exponential tree before it could say no.
 */
import { GraphQLError, type DocumentNode, type ValidationContext, type ValidationRule } from 'graphql';
import { selectionShapes } from './selection-shape';

export const MAX_QUERY_DEPTH = 8;

/**
 * The widest legitimate document selects a few hundred fields (a whole report is ~400); a
 * document without fragments cannot select more than its 10,000 tokens allow anyway.
 */
export const MAX_EXPANDED_FIELDS = 10_000;

export const selectionShapeRule: ValidationRule = (context: ValidationContext) => {
  for (const error of selectionShapeErrors(context.getDocument())) context.reportError(error);
  return {};
};

/** The document's operations that select too many fields or nest too deep, as validation errors. */
export function selectionShapeErrors(document: DocumentNode): GraphQLError[] {
  return [...selectionShapes(document)].flatMap(([operation, shape]) => {
    const name = operation.name?.value;
    const subject = name ? `Operation '${name}'` : 'The query';
    if (shape.fields > MAX_EXPANDED_FIELDS) {
      return new GraphQLError(
        `${subject} selects ${shape.fields} fields once its fragments are expanded; at most ${MAX_EXPANDED_FIELDS}: select fewer fields`,
        { nodes: [operation], extensions: { expandedFields: shape.fields, maximumExpandedFields: MAX_EXPANDED_FIELDS } },
      );
    }
    if (shape.depth <= MAX_QUERY_DEPTH) return [];
    return new GraphQLError(`${subject} is nested more than ${MAX_QUERY_DEPTH} levels deep: select fewer nested relations`, {
      nodes: [operation],
      extensions: { maximumDepth: MAX_QUERY_DEPTH },
    });
  });
}
