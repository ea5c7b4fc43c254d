/**
 * GraphQL over HTTP on /graphql: the whole pipeline, listed here in the order a request meets it.
 * Each step sits where its mechanism lets it act early enough (express before Apollo reads the
 * body; Apollo's hooks once the document is parsed; the schema's resolvers while it runs), and
 * each is one file:
 *
 *  0. (app-wide, before any of this) a refusal this instance already knows is held first
 *     (api/known-refusals.ts);
 *  1. the key, before the body is read: `graphqlAuthentication` (authentication-gate.ts);
 *     without a valid one, at most 16 kB are read, and only introspection goes on; a budget
 *     known to be spent is its 429 before any of the body is read;
 *  2. the body read and refused when malformed: `graphqlBodyReader`, `graphqlBodyErrors`
 *     (malformed-requests.ts); a keyless document too wide once its fragments expand is refused
 *     and keyless requests share one set of slots: `admitKeyless`;
 *  3. one of the organization's slots (requests in progress at once): `withOrganizationSlot`
 *     (organization-admission.ts);
 *  4. the request context (createRequestContext: loaders, statement limiter, answer budget);
 *  5. Apollo parses (MAX_DOCUMENT_TOKENS) and validates, with the expanded selection bounded
 *     (`selectionShapeRule`); a large document takes a turn on the event loop before each, and a
 *     refused document is charged the work of refusing it or its length (plugins/operation-limits.ts);
 *  6. operation types other than query and mutation refused (plugins/unsupported-operation.ts);
 *  7. the price: refused past the limits, else charged to the budget (plugins/operation-limits.ts,
 *     operation-cost.ts);
 *  8. execution (compiled-execution.ts): by the operation's answer plan (api/answer-plan), a
 *     `report` or `reports` field's JSON written by PostgreSQL in its one statement; the other
 *     fields on graphql-jit for a document an organization sends again (bounded in size, bytes and
 *     compile time), graphql-js otherwise; each field's arguments checked before its resolver
 *     (argument-validation.ts), lists, JSON values and stored documents counted against the answer
 *     budget as they resolve (answer-size.ts);
 *  9. the answer: errors in `format-error.ts`'s words, an answer past its budget refused whole
 *     (plugins/answer-too-large.ts), the database being away a 503
 *     (plugins/database-failure-status.ts), errors logged (plugins/log-errors.ts), a request error
 *     a 200 for clients that accept only application/json (plugins/legacy-json-status.ts).
 *
 * GraphiQL is served by graphiql.ts (Apollo's CDN landing page is off); subscriptions have their
 * own endpoint on the same path (subscriptions/subscription-server.ts), with steps 1, 5 and 7.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import express, { type Request, type Response, type Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import type { RequestContext } from '../../features/context';
import { logger } from '../../platform/logger';
import { requestLoggerMaker } from '../../platform/http/access-log';
import { invalidInput } from '../../shared/errors';
import { checkIdempotencyKey, IDEMPOTENCY_KEY_HEADER } from '../contract/idempotency-key';
import { createRequestContext, type ApiServices } from '../request-context';
import { admitKeyless, graphqlAuthentication, graphqlBodyReader } from './authentication-gate';
import { selectionShapeRule } from './selection-shape-rule';
import { formatError, requestError } from './format-error';
import { graphqlBodyErrors } from './malformed-requests';
import { withOrganizationSlot } from './organization-admission';
import { apolloExpressHandler } from './apollo-express';
import { answerTooLargePlugin } from './plugins/answer-too-large';
import { databaseFailureStatusPlugin } from './plugins/database-failure-status';
import { legacyJsonStatusPlugin } from './plugins/legacy-json-status';
import { compiledExecutionGateway } from './compiled-execution';
import { stringifyResult } from '../answer-plan/raw-json';
import type { AnswerPlans } from '../answer-plan/answer-plans';
import { logErrorsPlugin } from './plugins/log-errors';
import { operationLimitsPlugin } from './plugins/operation-limits';
import { unsupportedOperationPlugin } from './plugins/unsupported-operation';
import { tracingPlugin } from './plugins/tracing';
import { tracing } from '../../platform/tracing/tracing';

/** A document longer than this is refused while parsing: no real query comes close. */
export const MAX_DOCUMENT_TOKENS = 10_000;

export interface GraphqlOptions {
  /** Stack traces in error responses: for debugging only, never in production. */
  exposeStackTraces: boolean;
  /** Where the compiled documents' cache reports its size and compilations (none: not measured). */
  registry?: Registry;
  /** Milliseconds of compilation per minute, one organization's and all together (default: COMPILATION's). */
  compileMsPerMinute?: { organization: number; total: number };
  /** The answer plans (root fields written by PostgreSQL); absent: every field is answered typed. */
  plans?: AnswerPlans;
}

export async function graphqlRouter(schema: GraphQLSchema, services: ApiServices, options: GraphqlOptions): Promise<Router> {
  const server = new ApolloServer<RequestContext>({
    // The one schema, executed by graphql-jit for the documents seen again and again (compiled-execution.ts).
    // Compilations are charged to the organization's budget like the statements of a request.
    gateway: compiledExecutionGateway(schema, {
      registry: options.registry,
      limits: options.compileMsPerMinute && {
        organizationCompileMsPerMinute: options.compileMsPerMinute.organization,
        totalCompileMsPerMinute: options.compileMsPerMinute.total,
      },
      chargeCompilation: (organizationId, points) => services.rateLimits.requests.consume(organizationId, Math.max(1, Math.ceil(points))),
      plans: options.plans,
    }),
    // Writes a root field's JSON written by PostgreSQL as it is (answer-plan/raw-json.ts).
    stringifyResult,
    introspection: true,
    includeStacktraceInErrorResponses: options.exposeStackTraces,
    parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS },
    // Automatic persisted queries off: Apollo keeps them in one cache for every tenant, so any
    // tenant could fill it and learn, by hash, whether another sent a document. Clients that try
    // them get PERSISTED_QUERY_NOT_SUPPORTED and send the whole document, as the protocol says.
    persistedQueries: false,
    // A request carrying x-api-key already needs a browser preflight, so a GET with it (urql's
    // default) is no CSRF risk: count it with Apollo's own preflight-forcing headers.
    csrfPrevention: { requestHeaders: ['x-api-key', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    logger,
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No cache hints in this schema (answers depend on the key): the default plugin only wrapped
      // every field resolver for nothing (measured: about 2 ms of CPU per page of 100 reports).
      ApolloServerPluginCacheControlDisabled(),
      // Spans of parsing, validation and execution, only with tracing on (docs/deploy.md, "Observability").
      ...(tracing.on ? [tracingPlugin()] : []),
      unsupportedOperationPlugin(),
      operationLimitsPlugin(schema, services),
      answerTooLargePlugin(),
      databaseFailureStatusPlugin(),
      logErrorsPlugin(),
      legacyJsonStatusPlugin(),
    ],
    formatError,
    validationRules: [selectionShapeRule],
  });
  await server.start();
  const contextOf = (req: Request, res: Response): RequestContext => {
    const idempotencyKey = checkIdempotencyKey(req.headers[IDEMPOTENCY_KEY_HEADER]);
    if (!idempotencyKey.ok) throw requestError(invalidInput([idempotencyKey.item]));
    return createRequestContext(services, {
      principal: res.locals.principal ?? null,
      requestId: res.getHeader('x-request-id') as string | undefined,
      log: requestLoggerMaker(req),
      idempotencyKey: idempotencyKey.value,
      clientAddress: req.ip ?? '',
    });
  };
  const apollo = apolloExpressHandler(server, async ({ req, res }) => contextOf(req, res));
  const router = express.Router();
  // One route for the path rather than five mounts of it: a mount matches the path again for each
  // of its handlers, cutting it from the URL and putting it back each time.
  router.all(
    '/graphql',
    graphqlAuthentication(services),
    graphqlBodyReader(),
    graphqlBodyErrors,
    admitKeyless(services),
    withOrganizationSlot(services, apollo),
  );
  return router;
}
