/**
 * GraphQL's steps as spans under the request's HTTP span (docs/deploy.md, "Observability"):
 * `graphql.parse`, `graphql.validate`, `graphql.execute`, with the operation's name and type
 * (`graphql.operation.name`, `graphql.operation.type`) on the execution and on the request's
 * span, and the errors' codes (`graphql.error.codes`). Never the document's text, its variables or
 * an error's message (which may quote a variable's value). Installed only with tracing on
 * (server.ts), and idle for a request whose span does not record (unsampled).
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { GraphQLError } from 'graphql';
import type { RequestContext } from '../../../features/context';
import { appErrorOf } from '../format-error';
import { recordingSpan, tracer } from '../../../platform/tracing/tracing';

function step(name: string): (errors?: readonly Error[] | Error) => Promise<void> {
  const span = tracer().startSpan(name);
  return async (errors) => {
    if (errors && (!Array.isArray(errors) || errors.length > 0)) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
}

function codesOf(errors: readonly Error[]): string[] {
  const codes = new Set<string>();
  for (const error of errors) {
    // As the client reads it: an application error's code (format-error.ts), else graphql-js's or Apollo's.
    const code = appErrorOf(error)?.code ?? (error instanceof GraphQLError ? error.extensions.code : undefined);
    codes.add(typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR');
  }
  return [...codes].sort();
}

export function tracingPlugin(): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      const request = recordingSpan();
      if (!request) return;
      let execution: Span | undefined;
      return {
        async parsingDidStart() {
          return step('graphql.parse');
        },
        async validationDidStart() {
          return step('graphql.validate');
        },
        async didResolveOperation({ operation }) {
          const attributes = {
            'graphql.operation.type': operation?.operation ?? 'unknown',
            ...(operation?.name ? { 'graphql.operation.name': operation.name.value } : {}),
          };
          request.setAttributes(attributes);
          request.updateName(`POST /graphql ${attributes['graphql.operation.type']}${operation?.name ? ` ${operation.name.value}` : ''}`);
        },
        async executionDidStart({ operation }) {
          execution = tracer().startSpan('graphql.execute', {
            attributes: {
              'graphql.operation.type': operation.operation,
              ...(operation.name ? { 'graphql.operation.name': operation.name.value } : {}),
            },
          });
          return {
            async executionDidEnd(error) {
              if (error) execution?.setStatus({ code: SpanStatusCode.ERROR });
              execution?.end();
            },
          };
        },
        async didEncounterErrors({ errors }) {
          const codes = codesOf(errors);
          request.setAttributes({ 'graphql.error.codes': codes, 'graphql.error.count': errors.length });
          if (execution) {
            execution.setAttributes({ 'graphql.error.codes': codes, 'graphql.error.count': errors.length });
            execution.setStatus({ code: SpanStatusCode.ERROR });
          }
        },
      };
    },
  };
}
