/**
 * The express application: platform middleware (logs, headers, limits, health, metrics), then
 * the API's interfaces over one schema (GraphQL with GraphiQL, REST with its OpenAPI document and
 * Swagger UI), then JSON 404 and error handlers.
 */
import { createHash } from 'node:crypto';
import express, { type Express } from 'express';
import { graphiqlRouter } from '../api/graphql/graphiql';
import { GRAPHIQL_EXAMPLE_QUERY } from '../api/graphql/example-query';
import { AnswerPlans } from '../api/answer-plan/answer-plans';
import { buildAppSchema } from '../api/graphql/schema';
import { graphqlRouter } from '../api/graphql/server';
import { createSubscriptionServer } from '../api/graphql/subscriptions/subscription-server';
import { errorHandler, notFoundHandler } from '../api/http-errors';
import { buildOpenApiDocument } from '../api/openapi/openapi-document';
import { swaggerUiRouter } from '../api/openapi/swagger-ui';
import { answerHeldWithoutBody, holdKnownRefusalsFirst } from '../api/known-refusals';
import { createRefusalPacer, type ApiServices } from '../api/request-context';
import { answerRefusal } from '../api/rest/rest-errors';
import { restRouter } from '../api/rest/rest-router';
import { RestRouteTable } from '../api/rest/routes';
import { requestRoute, restMatchOf } from '../api/request-route';
import { ApiKeyAuthenticator } from '../features/auth/api-key-cache';
import { registerOutboxBacklog } from '../features/notifications/outbox-backlog';
import type { Database } from '../platform/db/database';
import { readColumnCatalog } from '../platform/db/column-catalog';
import { accessLog } from '../platform/http/access-log';
import { healthRoutes } from '../platform/http/health';
import { UPGRADE_HANDLER } from '../platform/http/http-server';
import { queryStringLimit, requestDeadline } from '../platform/http/limits';
import { corsPolicy, securityHeaders } from '../platform/http/security';
import { logger } from '../platform/logger';
import { createMetrics, type ApiInterface, type AppMetrics } from '../platform/metrics/metrics';
import { metricsHandlers } from '../platform/metrics/metrics-router';
import { registerReplicaMetrics } from '../platform/metrics/replica-metrics';
import { registerEventsWritten } from '../features/events/events-written';
import { createConcurrencyLimiter, type ConcurrencyLimiter } from '../platform/rate-limit/concurrency-limiter';
import { eventLoopBusy } from '../platform/event-loop-load';
import { connectRedis, createRateLimits, reportingRejections, type RateLimits } from '../platform/rate-limit/rate-limiter';
import { httpSpans } from '../platform/tracing/http-spans';
import { annotatedRateLimits } from '../platform/tracing/rate-limit-attributes';
import { tracing } from '../platform/tracing/tracing';
import type { AppConfig } from './config';
import { CursorCodec } from '../shared/cursor';

export interface AppContext {
  db: Database;
  config: AppConfig;
  isShuttingDown?: () => boolean;
  /** Shared with other instances through Redis when configured; made from the config when absent. */
  rateLimits?: RateLimits;
  /** Made from the config when absent (tests pass one to watch and hold its slots). */
  organizationSlots?: ConcurrencyLimiter;
  /** Made per app when absent; main.ts passes the one the database's onQuery and the dispatcher feed. */
  metrics?: AppMetrics;
}

export async function createApp(context: AppContext): Promise<Express> {
  const { config, db } = context;
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every body it sends into a weak ETag (SHA-1: 5.8 µs for a report's GraphQL
  // answer, 25 µs for a page of 100) for GET requests that might revalidate. GraphQL answers are not conditional
  // (docs/api-behaviour.md, "Conditional requests"); the REST fetch-one routes set their own ETag
  // before any work, and the OpenAPI document's is computed once.
  app.set('etag', false);
  // Which address is the client's (keyless requests are throttled by it): behind a proxy, the
  // proxies named here are trusted to report it in X-Forwarded-For.
  app.set('trust proxy', config.trustProxy);
  // The platform's own refusals (and the HTTP server's, http-server.ts) in the interfaces' words.
  app.locals.answerRefusal = answerRefusal;
  const metrics = context.metrics ?? createMetrics();
  const givenLimits = context.rateLimits ?? createRateLimits(config.rateLimits);
  // With tracing on, each decision is also an attribute of the request's span.
  const rateLimits = tracing.on ? annotatedRateLimits(givenLimits) : givenLimits;
  const organizationSlots = context.organizationSlots ?? createConcurrencyLimiter(config.organizationConcurrency, { busy: eventLoopBusy });
  const apiKeys = new ApiKeyAuthenticator(db.prisma, db);
  const cursors = new CursorCodec(config.cursorSecret);
  const refusalPacer = createRefusalPacer(config.refusalDelayMs);
  // One budget and one set of slots for both interfaces; each reports its own refusals to the metrics.
  const services = (api: ApiInterface): ApiServices => {
    const rejected = metrics.rateLimitRejected(api);
    return {
      db,
      appBaseUrl: config.appBaseUrl,
      cursors,
      webhooksAllowPrivate: config.webhooks.allowPrivateAddresses,
      rateLimits: reportingRejections(rateLimits, rejected),
      apiKeys,
      organizationSlots,
      onRefused: rejected,
      refusalDelayMs: config.refusalDelayMs,
      refusalPacer,
      maxAnswerValues: config.maxAnswerValues,
    };
  };
  // The route first: the access log, the metrics and the REST front layer all read this one match.
  app.use(requestRoute(new RestRouteTable()));
  // With tracing on, the request's span (named by that route), active for everything after it.
  if (tracing.on) app.use(httpSpans());
  // Then what is known to be refused waits, before any other work (api/known-refusals.ts).
  app.use(holdKnownRefusalsFirst(services('rest')));
  app.use(accessLog());
  app.use(securityHeaders());
  if (config.metrics.enabled) {
    registerOutboxBacklog(metrics.registry, db.prisma, logger);
    registerEventsWritten(metrics.registry, db.prisma, logger);
    registerReplicaMetrics(metrics.registry, db);
    // On the API's port unless a separate (internal) one is configured: main.ts serves it there.
    app.use(metricsHandlers(metrics, { token: config.metrics.token, answerRefusal, serveEndpoint: config.metrics.port === undefined }));
  }
  // Before anything that authenticates or counts: a CORS preflight carries no API key.
  const cors = corsPolicy(config.corsOrigins);
  if (cors) app.use(cors);
  app.use(queryStringLimit(answerRefusal), requestDeadline(config.requestTimeoutMs, answerRefusal), answerHeldWithoutBody(answerRefusal));
  const schema = await buildAppSchema();
  // One plan per document for both interfaces: the report answers PostgreSQL writes (api/answer-plan).
  const plans = new AnswerPlans(schema, await readColumnCatalog(db.prisma), metrics.registry);
  // What the route table matched (every /public path) goes straight to the REST layer: the routers
  // below serve other paths, and each one a request walks through costs it a few microseconds.
  const rest = restRouter(schema, services('rest'), plans);
  app.use((req, res, next) => (restMatchOf(res) ? rest(req, res, next) : next()));
  const graphql = await graphqlRouter(schema, services('graphql'), {
    // A debugging aid that production never honours: traces carry file paths.
    exposeStackTraces: config.graphqlStackTraces && config.nodeEnv !== 'production',
    compileMsPerMinute: config.compileMsPerMinute,
    plans,
    registry: metrics.registry,
  });
  // Likewise a POST to /graphql, every operation sent over HTTP: the two routers below serve GETs only.
  app.use((req, res, next) => (req.method === 'POST' && req.path === '/graphql' ? graphql(req, res, next) : next()));
  app.use(healthRoutes(db, context.isShuttingDown));
  // Before Apollo on the same path: it answers browsers asking for HTML and passes the rest on.
  app.use(graphiqlRouter({ endpoint: '/graphql', exampleQuery: GRAPHIQL_EXAMPLE_QUERY }));
  app.use(graphql);
  // WebSockets on /graphql (subscriptions): served by whichever HTTP server createHttpServer makes for this app.
  // Their client's address is express's own `req.ip` (TRUST_PROXY's rules), read for the upgrade request.
  const clientIp = Object.getOwnPropertyDescriptor(express.request, 'ip')!.get!;
  app.locals[UPGRADE_HANDLER] = createSubscriptionServer(schema, services('graphql'), {
    path: '/graphql',
    ...config.subscriptions,
    stream: { pollMs: config.subscriptions.pollMs, pollWithoutNotificationsMs: config.subscriptions.pollWithoutNotificationsMs },
    metrics,
    clientAddressOf: (request) => clientIp.call({ app, headers: request.headers, socket: request.socket }) as string,
    redis: config.rateLimits.redisUrl ? connectRedis(config.rateLimits.redisUrl) : undefined,
  });
  // Built once from the same schema the REST layer runs, so the document cannot drift from it.
  const openApiDocument = JSON.stringify(buildOpenApiDocument(schema));
  const openApiEtag = `"${createHash('sha256').update(openApiDocument).digest('base64url').slice(0, 27)}"`;
  app.get('/openapi.json', (_req, res) => {
    // With its ETag set, express answers a matching If-None-Match with a 304 (req.fresh).
    res.type('application/json').set('etag', openApiEtag).send(openApiDocument);
  });
  app.use(swaggerUiRouter({ path: '/docs', openApiUrl: '/openapi.json' }));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
