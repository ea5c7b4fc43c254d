/**
 * The application's Prometheus metrics, in a registry of their own per app: two apps in one
 * process (tests) never clash, and nothing lands in prom-client's global registry. Labels are
 * bounded by construction (route templates, SQL verbs, enum values): never an id, an API key, an
 * organization, an e-mail address or a phone number.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RateLimitKind } from '../rate-limit/rate-limiter';
import { sqlVerb } from '../tracing/sql-spans';

export type ApiInterface = 'rest' | 'graphql';

/** What the notification attempt counter calls each outcome (the row's status after the attempt). */
const ATTEMPT_OUTCOMES = { sent: 'sent', pending: 'retrying', failed: 'failed' } as const;

/** The statement kinds worth telling apart; anything else is `other`. */
const SQL_OPERATIONS = new Set([
  'select',
  'insert',
  'update',
  'delete',
  'with',
  'begin',
  'commit',
  'rollback',
  'savepoint',
  'release',
  'set',
]);

export type AppMetrics = ReturnType<typeof createMetrics>;

/** The SQL verb of a statement (`select`, `insert`, ...): its text and values never become labels. */
export function sqlOperationOf(query: string): string {
  const verb = sqlVerb(query).toLowerCase();
  return SQL_OPERATIONS.has(verb) ? verb : 'other';
}

export function createMetrics() {
  const registry = new Registry();
  const httpRequestDuration = new Histogram({
    name: 'vr_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code (/metrics itself excluded).',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const dbQueryDuration = new Histogram({
    name: 'vr_db_query_duration_seconds',
    help: 'SQL statements run through Prisma, by statement kind.',
    labelNames: ['operation'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'vr_rate_limit_rejections_total',
    help: 'Requests refused by a per-key rate limit (REST 429, GraphQL RATE_LIMITED), by limit and interface.',
    labelNames: ['limit', 'interface'] as const,
    registers: [registry],
  });
  const notificationAttempts = new Counter({
    name: 'vr_notification_attempts_total',
    help: 'Notification delivery attempts by channel and outcome: sent, retrying (failed, will retry) or failed (gave up).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [registry],
  });

  const webhookAttempts = new Counter({
    name: 'vr_webhook_attempts_total',
    help: 'Webhook requests by outcome: delivered (2xx), retry (failed, will retry) or dead (failed its last attempt, dead-lettered).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookLag = new Histogram({
    name: 'vr_webhook_delivery_lag_seconds',
    help: "From an event's writing transaction to the receiver's 2xx.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });

  const subscriptionsOpen = new Gauge({
    name: 'vr_graphql_subscriptions_open',
    help: 'GraphQL subscriptions (graphql-ws) open on this instance.',
    registers: [registry],
  });
  const subscriptionEventsPushed = new Counter({
    name: 'vr_subscription_events_pushed_total',
    help: 'Events pushed to GraphQL subscribers.',
    registers: [registry],
  });
  const subscriptionPushLag = new Histogram({
    name: 'vr_subscription_push_lag_seconds',
    help: "From an event's writing transaction to its push to a subscriber.",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers: [registry],
  });

  return {
    registry,
    httpRequestDuration,
    subscriptionsOpen,
    /** An event pushed to a subscriber, and the lag from its writing transaction to the push. */
    subscriptionEventPushed: (lagSeconds: number | undefined) => {
      subscriptionEventsPushed.inc();
      if (lagSeconds !== undefined) subscriptionPushLag.observe(Math.max(0, lagSeconds));
    },
    /** Fits `DatabaseOptions.onQuery`: times every SQL statement by its kind. */
    observeQuery: ({ query, durationMs }: { query: string; durationMs: number }) =>
      dbQueryDuration.observe({ operation: sqlOperationOf(query) }, durationMs / 1000),
    /** A rejection recorder for one interface, for `reportingRejections`. */
    rateLimitRejected: (api: ApiInterface) => (limit: RateLimitKind) => rateLimitRejections.inc({ limit, interface: api }),
    /** One notification delivery attempt and the row's status after it. */
    notificationAttempted: (channel: string, status: keyof typeof ATTEMPT_OUTCOMES) =>
      notificationAttempts.inc({ channel, outcome: ATTEMPT_OUTCOMES[status] }),
    /** One webhook request and what became of its event; the lag from the change to its delivery. */
    webhookAttempted: (outcome: 'delivered' | 'retry' | 'dead', lagSeconds: number | undefined) => {
      webhookAttempts.inc({ outcome });
      if (lagSeconds !== undefined) webhookLag.observe(Math.max(0, lagSeconds));
    },
  };
}
