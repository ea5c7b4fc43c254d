/**
 * Configuration from the environment, read once. Every variable is documented in README.md and
 * .env.example.
 */
import path from 'node:path';
import type { DispatcherConfig } from '../features/notifications/dispatcher';
import type { WebhookDispatcherConfig } from '../features/webhooks/webhook-dispatcher';
import type { DatabaseOptions } from '../platform/db/database';
import type { ConcurrencySettings } from '../platform/rate-limit/concurrency-limiter';
import type { RateLimitSettings } from '../platform/rate-limit/rate-limiter';
import { DEFAULT_CURSOR_SECRET } from '../shared/cursor';
import { DEFAULT_MAX_ANSWER_VALUES } from '../shared/answer-budget';

export type { DispatcherConfig };

/** The configuration `loadConfig` reads. */
export type AppConfig = ReturnType<typeof loadConfig>;

/** `value` as a `T`: its optional fields stay optional where tests and callers override them. */
const typed = <T>(value: T): T => value;

const commaList = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = Number.MIN_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  if (value < min) throw new Error(`${name} must be at least ${min}, got ${value}`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  return /^(1|true|yes|on)$/i.test(raw);
}

function dispatcherConfig(env: NodeJS.ProcessEnv): DispatcherConfig {
  const config: DispatcherConfig = {
    pollIntervalMs: integer(env, 'DISPATCHER_POLL_INTERVAL_MS', 1_000, 1),
    batchSize: integer(env, 'DISPATCHER_BATCH_SIZE', 20, 1),
    leaseMs: integer(env, 'DISPATCHER_LEASE_MS', 120_000, 1),
    sendTimeoutMs: integer(env, 'NOTIFICATION_SEND_TIMEOUT_MS', 30_000, 1),
    maxAttempts: integer(env, 'NOTIFICATION_MAX_ATTEMPTS', 8, 1),
    backoffBaseMs: integer(env, 'NOTIFICATION_BACKOFF_BASE_MS', 2_000, 0),
    backoffMaxMs: integer(env, 'NOTIFICATION_BACKOFF_MAX_MS', 600_000, 0),
  };
  // A lease shorter than a send would let a second worker re-claim a row still being sent.
  if (config.leaseMs <= config.sendTimeoutMs * 2) {
    throw new Error('DISPATCHER_LEASE_MS must be more than twice NOTIFICATION_SEND_TIMEOUT_MS');
  }
  return config;
}

function webhooksConfig(env: NodeJS.ProcessEnv, nodeEnv: string): WebhookDispatcherConfig {
  const config: WebhookDispatcherConfig = {
    pollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 250, 1),
    batchSize: integer(env, 'WEBHOOK_BATCH_SIZE', 20, 1),
    eventsPerClaim: integer(env, 'WEBHOOK_EVENTS_PER_CLAIM', 20, 1),
    leaseMs: integer(env, 'WEBHOOK_LEASE_MS', 120_000, 1),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 5_000, 1),
    maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 10, 1),
    backoffBaseMs: integer(env, 'WEBHOOK_BACKOFF_BASE_MS', 2_000, 0),
    backoffMaxMs: integer(env, 'WEBHOOK_BACKOFF_MAX_MS', 600_000, 0),
    // Receivers on private networks only where no outsider can register one (SSRF).
    allowPrivateAddresses: flag(env, 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES', nodeEnv !== 'production') && nodeEnv !== 'production',
  };
  // The lease must outlast a whole claim's sends, or a second dispatcher would send them too.
  if (config.leaseMs <= config.eventsPerClaim * config.timeoutMs) {
    throw new Error('WEBHOOK_LEASE_MS must be more than WEBHOOK_EVENTS_PER_CLAIM x WEBHOOK_TIMEOUT_MS');
  }
  return config;
}

function metricsToken(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  // It travels as one bearer credential: a space would make it impossible to send.
  if (!/^\S+$/.test(raw)) throw new Error('METRICS_TOKEN must not contain whitespace');
  return raw;
}

/** CORS_ORIGINS: `*`, or a comma list of exact origins (`https://crm.example.com`, no path). */
function corsOrigins(env: NodeJS.ProcessEnv): string[] | '*' {
  if ((env.CORS_ORIGINS ?? '').trim() === '*') return '*';
  const origins = commaList(env.CORS_ORIGINS);
  for (const origin of origins) {
    // Browsers send the origin serialized this way; anything else could never match.
    const serialized = URL.canParse(origin) ? new URL(origin).origin : undefined;
    if (serialized !== origin)
      throw new Error(
        `CORS_ORIGINS: "${origin}" is not an origin like https://app.example.com (scheme, host, optional port, nothing after)`,
      );
  }
  return origins;
}

/** DATABASE_REPLICA_URLS: a comma list of postgresql:// URLs. */
function replicaUrls(env: NodeJS.ProcessEnv): string[] {
  const urls = commaList(env.DATABASE_REPLICA_URLS);
  for (const url of urls) {
    if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url))
      throw new Error('DATABASE_REPLICA_URLS must be a comma list of postgresql:// URLs');
  }
  if (urls.length > 0 && !env.DATABASE_URL)
    throw new Error('DATABASE_REPLICA_URLS needs DATABASE_URL (replicas of a PostgreSQL server, not of PGlite)');
  return urls;
}

/** `TRUST_PROXY`: true/false, a number of hops, or addresses/subnets/names express understands (`loopback`, `10.0.0.0/8`). */
function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * What a production server must not do by accident: seed demo organizations (their keys would be
 * printed in the log) or publish /metrics to whoever reaches the API. Checked by the server only
 * (the worker, CLI and migrator neither seed nor serve metrics).
 */
export function assertSafeToServe(config: AppConfig): void {
  if (config.nodeEnv !== 'production') return;
  if (config.seedDemoData) {
    throw new Error('SEED_DEMO_DATA=true is refused with NODE_ENV=production: demo keys would be printed in the log');
  }
  if (config.metrics.enabled && config.metrics.token === undefined && config.metrics.port === undefined) {
    throw new Error('NODE_ENV=production: set METRICS_TOKEN or METRICS_PORT (an internal port), or METRICS_ENABLED=false');
  }
}

export type NodeEnvironment = 'production' | 'development' | 'test';

/**
 * NODE_ENV, exactly: `Production` is production, and a value that is none of the three (`prod`,
 * `staging`) is refused rather than taken for development, where demo data are seeded, keys
 * printed and /metrics public.
 */
function nodeEnvironment(env: NodeJS.ProcessEnv): NodeEnvironment {
  const raw = (env.NODE_ENV ?? '').trim().toLowerCase();
  if (raw === '') return 'development';
  if (raw === 'production' || raw === 'development' || raw === 'test') return raw;
  throw new Error(`NODE_ENV=${JSON.stringify(env.NODE_ENV)} is not one of production, development, test`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1);
  const nodeEnv = nodeEnvironment(env);
  const metricsPort = integer(env, 'METRICS_PORT', 0, 0);
  return {
    port: integer(env, 'PORT', 4000),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.DATABASE_URL || undefined,
    // PostgreSQL itself when DATABASE_URL is a pooler (PgBouncer): migrations and advisory locks connect here.
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    databaseReplicaUrls: replicaUrls(env),
    replicaMaxLagMs: integer(env, 'REPLICA_MAX_LAG_MS', 5_000, 0),
    replicaCheckIntervalMs: integer(env, 'REPLICA_CHECK_INTERVAL_MS', 1_000, 50),
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    pgPoolMax: integer(env, 'PG_POOL_MAX', 10),
    pgConnectionTimeoutMs: integer(env, 'PG_CONNECTION_TIMEOUT_MS', 2_000, 1),
    // By default a statement stops when its request's deadline does.
    pgStatementTimeoutMs: integer(env, 'PG_STATEMENT_TIMEOUT_MS', requestTimeoutMs, 0),
    // A request not answered after this long gets 503; also Node's limit for receiving a request.
    requestTimeoutMs,
    corsOrigins: corsOrigins(env),
    trustProxy: trustProxy(env),
    graphqlStackTraces: flag(env, 'GRAPHQL_STACK_TRACES', false),
    appBaseUrl: (env.APP_BASE_URL || 'https://app.vehicle-report.example').replace(/\/+$/, ''),
    // The same on every instance behind one address. Unset, a fixed public key: cursors are still
    // strictly validated, but anyone could sign one.
    cursorSecret: env.CURSOR_SECRET || DEFAULT_CURSOR_SECRET,
    // Demo data only where it cannot reach real clients.
    seedDemoData: flag(env, 'SEED_DEMO_DATA', nodeEnv !== 'production'),
    // Off when a separate job runs `npm run db:migrate`, e.g. behind PgBouncer in transaction mode,
    // where the migrations' session lock cannot hold.
    migrateOnStart: flag(env, 'MIGRATE_ON_START', true),
    // On SIGTERM, how long the instance keeps serving while /readyz already answers 503, so the load
    // balancer stops sending it traffic before it stops accepting connections.
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0),
    logLevel: env.LOG_LEVEL || 'info',
    nodeEnv,
    // Either channel absent: its messages go to `${dataDir}/outbox.log`.
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'Vehicle Report <no-reply@vehicle-report.example>',
    smsApiUrl: env.SMS_API_URL || undefined,
    smsApiToken: env.SMS_API_TOKEN || undefined,
    runDispatcher: flag(env, 'RUN_DISPATCHER', true),
    dispatcher: dispatcherConfig(env),
    events: {
      retentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1),
      pruneIntervalMs: integer(env, 'EVENT_PRUNE_INTERVAL_MS', 3_600_000, 1_000),
    },
    webhooks: webhooksConfig(env, nodeEnv),
    subscriptions: {
      perOrganization: integer(env, 'SUBSCRIPTIONS_PER_ORGANIZATION', 20, 1),
      perSocket: integer(env, 'SUBSCRIPTIONS_PER_SOCKET', 10, 1),
      maxMessageBytes: integer(env, 'SUBSCRIPTION_MAX_MESSAGE_BYTES', 64 * 1024, 1024),
      pollMs: integer(env, 'SUBSCRIPTION_POLL_MS', 5_000, 50),
      // While the instance cannot LISTEN (transaction pooler without DATABASE_DIRECT_URL).
      pollWithoutNotificationsMs: integer(env, 'SUBSCRIPTION_POLL_WITHOUT_NOTIFY_MS', 500, 50),
    },
    rateLimits: typed<RateLimitSettings>({
      redisUrl: env.REDIS_URL || undefined,
      // Points: a request costs the SQL statements it may run (a list page 2, one report 1).
      requestsPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 3000, 1),
      leadsPerMinute: integer(env, 'LEAD_RATE_LIMIT_PER_MINUTE', 60, 1),
      anonymousPerMinute: integer(env, 'ANONYMOUS_RATE_LIMIT_PER_MINUTE', 60, 1),
    }),
    organizationConcurrency: typed<ConcurrencySettings>({
      // 0: no cap. The default leaves the other tenants most of the pool (PG_POOL_MAX 10, three
      // statements in flight per request) and of the event loop; see docs/deploy.md, "Fairness".
      limit: integer(env, 'ORG_CONCURRENT_REQUESTS', 4, 0),
      maxQueued: integer(env, 'ORG_QUEUED_REQUESTS', 16, 0),
      maxWaitMs: integer(env, 'ORG_QUEUE_WAIT_MS', 1_000, 0),
      // While the event loop is busy and shared by several organizations: each one's cap (0: off).
      whenBusy: integer(env, 'ORG_CONCURRENT_REQUESTS_WHEN_BUSY', 1, 0),
    }),
    // A refusal that repeats (a spent budget, a wrong key) is held this long before it is sent: a
    // timer, where a client that does not wait would otherwise cost as many answers as the CPU can write.
    refusalDelayMs: integer(env, 'REFUSAL_DELAY_MS', 500, 0),
    // Past it, execution stops with QUERY_TOO_COMPLEX.
    maxAnswerValues: integer(env, 'MAX_ANSWER_VALUES', DEFAULT_MAX_ANSWER_VALUES, 1_000),
    compileMsPerMinute: {
      organization: integer(env, 'ORG_COMPILE_MS_PER_MINUTE', 250, 0),
      total: integer(env, 'COMPILE_MS_PER_MINUTE', 1_000, 0),
    },
    metrics: typed<{ enabled: boolean; token?: string; host: string; port?: number }>({
      enabled: flag(env, 'METRICS_ENABLED', true),
      token: metricsToken(env),
      port: metricsPort === 0 ? undefined : metricsPort,
      // The internal port is internal: loopback unless told otherwise.
      host: env.METRICS_HOST || '127.0.0.1',
    }),
  };
}

/**
 * How the API's processes open the database: one mapping, used by the server, worker, CLI and
 * migrator. Replicas are the server's alone (`serverDatabaseOptionsFrom`): the others write, or
 * read what they must read from the primary.
 */
export function databaseOptionsFrom(config: AppConfig, overrides: Partial<DatabaseOptions> = {}): DatabaseOptions {
  return {
    url: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    poolMax: config.pgPoolMax,
    connectionTimeoutMs: config.pgConnectionTimeoutMs,
    statementTimeoutMs: config.pgStatementTimeoutMs,
    ...overrides,
  };
}

/** The server's database: `databaseOptionsFrom` plus the read replicas. */
export function serverDatabaseOptionsFrom(config: AppConfig, overrides: Partial<DatabaseOptions> = {}): DatabaseOptions {
  return databaseOptionsFrom(config, {
    replicaUrls: config.databaseReplicaUrls,
    replicaMaxLagMs: config.replicaMaxLagMs,
    replicaCheckIntervalMs: config.replicaCheckIntervalMs,
    ...overrides,
  });
}
