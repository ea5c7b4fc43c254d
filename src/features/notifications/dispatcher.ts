/**
 * Delivers the notification outbox (docs/api-behaviour.md, "Lead creation").
 *
 * Claiming: one statement selects due rows with `FOR UPDATE SKIP LOCKED` and sets a lease
 * (`locked_until`). Concurrent dispatchers skip each other's rows while the claim runs and see
 * the lease afterwards, so a row is handed to one dispatcher at a time; a crashed dispatcher's
 * rows become due again when their lease ends. The lease is longer than a send may take
 * (`sendTimeoutMs`, enforced by the config), so a live dispatcher never loses a row mid-send.
 *
 * Finishing: the row is updated only if it still carries this claim's lease (the lease end, to
 * the millisecond, is the claim's token) and every attempt is recorded, sent or not.
 *
 * Works on PGlite as well: every statement runs through the one client, and the finishing
 * transaction uses only its own `tx`.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import { PollingLoop } from '../../platform/polling-loop';
import { activeTraceparent, inContinuedSpan } from '../../platform/tracing/tracing';
import type { Logger } from '../../platform/logger';
import { retryDelayMs } from './backoff';
import type { ChannelName, ChannelSenders, OutboxMessage } from './channels';
import { maskRecipient } from './masking';
import type { NotificationPayload } from './notification-payload';

interface ClaimedRow {
  id: string;
  channel: ChannelName;
  recipient: string;
  payload: NotificationPayload;
  attempts: number;
  /** lease end in epoch milliseconds, as text (bigint): identifies this claim */
  lease: string;
  /** the `traceparent` of the request that queued it (tracing on), continued by its delivery */
  trace_context: string | null;
}

/** How the outbox dispatcher claims, retries and gives up. */
export interface DispatcherConfig {
  /** Pause between two polls of an idle outbox. */
  pollIntervalMs: number;
  /** Rows claimed per batch. */
  batchSize: number;
  /** How long a claimed row stays reserved; a crashed worker's rows come back after it. */
  leaseMs: number;
  /** Time allowed for one send (SMTP or SMS call); must stay well below the lease. */
  sendTimeoutMs: number;
  /** Attempts before a row is marked failed. */
  maxAttempts: number;
  /** Delay after the first failure; doubled after each further one, with jitter. */
  backoffBaseMs: number;
  /** Longest delay between two attempts. */
  backoffMaxMs: number;
}

/** Told of every attempt with the row's status after it (pending: failed, will retry). */
export interface DispatcherMetrics {
  notificationAttempted(channel: ChannelName, status: 'sent' | 'pending' | 'failed'): void;
}

export class OutboxDispatcher {
  private readonly polling: PollingLoop;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly senders: ChannelSenders,
    private readonly options: DispatcherConfig,
    private readonly logger: Logger,
    private readonly metrics?: DispatcherMetrics,
  ) {
    // A full batch means more rows are probably due: go on without waiting.
    this.polling = new PollingLoop(
      'outbox dispatcher',
      async () => (await this.runOnce()) >= options.batchSize,
      options.pollIntervalMs,
      logger,
    );
  }

  /** Polls the outbox until `stop()`. */
  start(): void {
    this.polling.start();
  }

  /** Stops polling and waits for the batch under way to be finished and recorded. */
  async stop(): Promise<void> {
    await this.polling.stop();
  }

  /** Claims one batch of due rows and delivers it; returns how many rows it claimed. */
  async runOnce(): Promise<number> {
    const rows = await this.claim();
    await Promise.all(rows.map((row) => this.deliver(row)));
    return rows.length;
  }

  private claim(): Promise<ClaimedRow[]> {
    const { leaseMs, batchSize } = this.options;
    return this.prisma.$queryRaw<ClaimedRow[]>`
      UPDATE notification_outbox AS o
      SET locked_until = now() + ${leaseMs}::int * interval '1 millisecond', updated_at = now()
      FROM (
        SELECT id FROM notification_outbox
        WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
        ORDER BY next_attempt_at, id
        LIMIT ${batchSize}::int
        FOR UPDATE SKIP LOCKED
      ) AS due
      WHERE o.id = due.id
      RETURNING o.id::text AS id, o.channel::text AS channel, o.recipient, o.payload, o.attempts,
        (extract(epoch FROM o.locked_until) * 1000)::bigint::text AS lease, o.trace_context`;
  }

  /** One attempt, in a span continuing the trace of the request that queued the row (tracing on); never the recipient. */
  private deliver(row: ClaimedRow): Promise<'sent' | 'pending' | 'failed'> {
    return inContinuedSpan(
      `notification.deliver ${row.channel}`,
      row.trace_context,
      { 'vr.notification.channel': row.channel, 'vr.notification.attempt': row.attempts + 1 },
      () => this.attempt(row),
      (status) => ({ 'vr.notification.outcome': status, failed: status !== 'sent' }),
    );
  }

  private async attempt(row: ClaimedRow): Promise<'sent' | 'pending' | 'failed'> {
    const message: OutboxMessage = { id: row.id, channel: row.channel, recipient: row.recipient, payload: row.payload };
    const recipient = maskRecipient(row.channel, row.recipient);
    const attempt = row.attempts + 1;
    let failure: string | null = null;
    try {
      await this.senders[row.channel].send(message, AbortSignal.timeout(this.options.sendTimeoutMs));
    } catch (error) {
      // Provider messages may quote the address or number: never store or log it whole.
      failure = describe(error).split(row.recipient).join(recipient).slice(0, 1_000);
    }

    const gaveUp = failure !== null && attempt >= this.options.maxAttempts;
    const delayMs =
      failure === null || gaveUp ? 0 : retryDelayMs(attempt, { baseMs: this.options.backoffBaseMs, maxMs: this.options.backoffMaxMs });
    const status = failure === null ? 'sent' : gaveUp ? 'failed' : 'pending';
    // With tracing on, the outcome's event (written by a trigger in this transaction) names this delivery's span.
    const traceparent = activeTraceparent();
    const owned = await this.prisma.$transaction(async (tx) => {
      if (traceparent) await tx.$queryRaw`SELECT set_config('vr.trace_context', ${traceparent}, true)`;
      const updated = await tx.$executeRaw`
        UPDATE notification_outbox SET
          status = ${status}::"NotificationStatus",
          attempts = attempts + 1,
          last_error = ${failure},
          sent_at = CASE WHEN ${status} = 'sent' THEN now() ELSE sent_at END,
          next_attempt_at = CASE WHEN ${status} = 'pending' THEN now() + ${delayMs}::int * interval '1 millisecond' ELSE next_attempt_at END,
          locked_until = NULL,
          updated_at = now()
        WHERE id = ${row.id}::uuid AND status = 'pending'
          AND (extract(epoch FROM locked_until) * 1000)::bigint = ${row.lease}::bigint`;
      // The attempt happened whatever became of the claim: record it in any case.
      await tx.notificationAttempt.create({ data: { outbox_id: row.id, succeeded: failure === null, error: failure } });
      return updated === 1;
    });

    this.metrics?.notificationAttempted(row.channel, status);
    const context = { outboxId: row.id, channel: row.channel, recipient, attempt };
    if (!owned) this.logger.warn(context, 'outbox row was re-claimed before this attempt finished (lease too short?)');
    if (failure === null) this.logger.info(context, `${row.channel} notification sent`);
    else if (gaveUp) this.logger.error({ ...context, error: failure }, `${row.channel} notification failed after ${attempt} attempts`);
    else this.logger.warn({ ...context, error: failure, retryInMs: delayMs }, `${row.channel} notification attempt failed; will retry`);
    return status;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'send timed out';
  // fetch() reports the network cause (ECONNREFUSED, ...) separately.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
