/**
 * An answer that outgrew the request's budget (answer-size.ts) is refused whole: one
 * QUERY_TOO_COMPLEX error and no data. A partial answer with nulls where execution stopped would
 * look like data that is missing, and the fields that did resolve are not worth the bytes.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestContext } from '../../../features/context';
import { extensionsOf } from '../format-error';

export function answerTooLargePlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ contextValue, response }) {
          const exceeded = contextValue.answerBudget?.exceeded;
          if (!exceeded || response.body.kind !== 'single') return;
          response.body.singleResult = { data: null, errors: [{ message: exceeded.message, extensions: extensionsOf(exceeded) }] };
        },
      };
    },
  };
}
