/**
 * Queries nested deeper than MAX_QUERY_DEPTH are refused at validation. graphql-depth-limit names
 * the operation in its message ("'' exceeds ..." when it is anonymous); this says what is wrong
 * and what to do, once per operation.
 */
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { hasBrokenFragments } from './malformed-requests';

export const MAX_QUERY_DEPTH = 8;

export const depthLimitRule: ValidationRule = (context: ValidationContext) => {
  const reported = new Set<string>();
  const rewording = Object.create(context, {
    reportError: {
      value: (error: GraphQLError) => {
        const operation = /^'(.*)' exceeds/.exec(error.message)?.[1] ?? '';
        if (reported.has(operation)) return;
        reported.add(operation);
        const subject = operation ? `Operation '${operation}'` : 'The query';
        context.reportError(
          new GraphQLError(`${subject} is nested more than ${MAX_QUERY_DEPTH} levels deep: select fewer nested relations`, {
            nodes: error.nodes,
            extensions: { maximumDepth: MAX_QUERY_DEPTH },
          }),
        );
      },
    },
  }) as ValidationContext;
  // graphql-depth-limit throws on an unknown fragment and loops on a cycle; graphql-js reports both.
  if (hasBrokenFragments(context.getDocument())) return {};
  return depthLimit(MAX_QUERY_DEPTH)(rewording);
};
