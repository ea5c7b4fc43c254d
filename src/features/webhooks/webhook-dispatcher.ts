/**
 * Delivers each enabled endpoint's change feed (docs/events.md, "Webhooks") with the outbox's
 * machinery (notifications/dispatcher.ts): due endpoints are claimed with `FOR UPDATE SKIP LOCKED`
 * and a lease, so one dispatcher at a time delivers an endpoint, and a crashed dispatcher's
 * endpoints come back when the lease ends.
 *
 * Per endpoint, events go out one at a time in feed order (commit order, events.service.ts), and
 * the endpoint's cursor moves past an event only once the receiver answered 2xx: at least once,
 * in order. A kill between the answer and the cursor update sends that event again, with the same
 * webhook-id. A failure stops the endpoint until its backoff ends; after the last attempt the
 * event becomes a dead letter and delivery moves on.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import { PollingLoop } from '../../platform/polling-loop';
import { activeTraceparent, inContinuedSpan } from '../../platform/tracing/tracing';
import type { Logger } from '../../platform/logger';
import { decodeCursor, encodeCursor } from '../events/event-cursor';
import { readEvents, type FeedEvent } from '../events/events.service';
import { retryDelayMs } from '../notifications/backoff';
import { deliver, type DeliveryResult } from './delivery';

export interface WebhookDispatcherConfig {
  pollIntervalMs: number;
  /** endpoints claimed per poll */
  batchSize: number;
  /** events sent to one endpoint per claim */
  eventsPerClaim: number;
  leaseMs: number;
  timeoutMs: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** false in production: receivers on private, loopback and link-local addresses are refused */
  allowPrivateAddresses: boolean;
}

export interface WebhookMetrics {
  webhookAttempted(outcome: 'delivered' | 'retry' | 'dead', lagSeconds: number | undefined): void;
}

interface ClaimedEndpoint {
  id: string;
  organization_id: string;
  url: string;
  secret: string;
  types: string[];
  cursor_xid: string;
  cursor_position: string;
  attempts: number;
  lease: string;
}

/** The JSON body of one event (Standard Webhooks' `type`, `timestamp`, `data`). */
export function webhookBody(event: FeedEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.occurred_at.toISOString(),
    data: { cursor: event.cursor, position: event.position, subject: event.subject, payload: event.payload },
  });
}

export const webhookId = (event: FeedEvent) => `evt_${event.position}`;

export class WebhookDispatcher {
  private readonly polling: PollingLoop;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: WebhookDispatcherConfig,
    private readonly logger: Logger,
    private readonly metrics?: WebhookMetrics,
  ) {
    this.polling = new PollingLoop('webhook dispatcher', async () => (await this.runOnce()) > 0, config.pollIntervalMs, logger);
  }

  start(): void {
    this.polling.start();
  }

  async stop(): Promise<void> {
    await this.polling.stop();
  }

  /** Claims due endpoints and delivers to each; returns how many events went out. */
  async runOnce(): Promise<number> {
    const endpoints = await this.claim();
    const sent = await Promise.all(endpoints.map((endpoint) => this.deliverEndpoint(endpoint)));
    return sent.reduce((a, b) => a + b, 0);
  }

  private claim(): Promise<ClaimedEndpoint[]> {
    const { leaseMs, batchSize } = this.config;
    return this.prisma.$queryRaw<ClaimedEndpoint[]>`
      UPDATE webhook_endpoints AS w
      SET locked_until = now() + ${leaseMs}::int * interval '1 millisecond'
      FROM (
        SELECT id FROM webhook_endpoints
        WHERE status = 'enabled' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
        ORDER BY next_attempt_at, id
        LIMIT ${batchSize}::int
        FOR UPDATE SKIP LOCKED
      ) AS due
      WHERE w.id = due.id
      RETURNING w.id::text AS id, w.organization_id::text AS organization_id, w.url, w.secret, w.types, w.cursor_xid,
        w.cursor_position::text AS cursor_position, w.attempts, (extract(epoch FROM w.locked_until) * 1000)::bigint::text AS lease`;
  }

  /**
   * Sends the endpoint's next events in order and stops at the first failure. The cursor moves
   * once per claim, past what was acknowledged (one UPDATE per claim, not per event): a crash
   * before it sends that claim's events again, with their ids.
   */
  private async deliverEndpoint(endpoint: ClaimedEndpoint): Promise<number> {
    const after = encodeCursor({ xid: BigInt(endpoint.cursor_xid), position: BigInt(endpoint.cursor_position) });
    const page = await readEvents(this.prisma, endpoint.organization_id, {
      after,
      limit: this.config.eventsPerClaim,
      types: endpoint.types.length > 0 ? endpoint.types.join(',') : null,
    });
    let attempts = endpoint.attempts;
    let acknowledged = after;
    let sent = 0;
    let lastError: string | null = null;
    for (const event of page.items) {
      // In a span continuing the trace of the request that wrote the event (tracing on); the
      // receiver gets its `traceparent`. Never the endpoint's URL: it may carry a token.
      const result = await inContinuedSpan(
        'webhook.deliver',
        event.trace_context,
        { 'vr.webhook.event_type': event.type, 'vr.webhook.attempt': attempts + 1 },
        () =>
          deliver(
            endpoint.url,
            endpoint.secret,
            { id: webhookId(event), body: webhookBody(event), traceparent: activeTraceparent() },
            { timeoutMs: this.config.timeoutMs, allowPrivate: this.config.allowPrivateAddresses },
          ),
        (delivery) => ({ ...(delivery.status ? { 'http.response.status_code': delivery.status } : {}), failed: !delivery.ok }),
      );
      attempts += 1;
      if (result.ok) {
        this.metrics?.webhookAttempted('delivered', (Date.now() - event.occurred_at.getTime()) / 1000);
        sent += 1;
        attempts = 0;
        acknowledged = event.cursor;
        continue;
      }
      lastError = describe(result);
      if (attempts >= this.config.maxAttempts) {
        this.metrics?.webhookAttempted('dead', undefined);
        this.logger.error({ endpointId: endpoint.id, event: event.position, error: lastError }, 'webhook event dead-lettered');
        await this.prisma.$executeRaw`
          INSERT INTO webhook_dead_letters (id, endpoint_id, event_position, event_type, attempts, last_error)
          VALUES (gen_random_uuid(), ${endpoint.id}::uuid, ${event.position}::bigint, ${event.type}, ${attempts}::int, ${lastError})`;
        attempts = 0;
        acknowledged = event.cursor;
        continue;
      }
      this.metrics?.webhookAttempted('retry', undefined);
      const delayMs = retryDelayMs(attempts, { baseMs: this.config.backoffBaseMs, maxMs: this.config.backoffMaxMs });
      this.logger.warn({ endpointId: endpoint.id, attempt: attempts, retryInMs: delayMs, error: lastError }, 'webhook attempt failed');
      await this.release(endpoint, acknowledged, sent, attempts, lastError, delayMs);
      return sent;
    }
    // Everything visible was sent: a short page's `next` may also skip past other organizations'
    // transactions; come back at the next poll.
    await this.release(endpoint, page.next, sent, 0, lastError, 0);
    return sent;
  }

  /** Moves the cursor, records the outcome and ends the claim; nothing if the lease was lost. */
  private async release(
    endpoint: ClaimedEndpoint,
    cursor: string,
    sent: number,
    attempts: number,
    error: string | null,
    delayMs: number,
  ): Promise<void> {
    const { xid, position } = decodeCursor(cursor)!;
    const updated = await this.prisma.$executeRaw`
      UPDATE webhook_endpoints SET cursor_xid = ${xid.toString()}, cursor_position = ${position.toString()}::bigint,
        attempts = ${attempts}::int, last_error = ${error}, delivered_count = delivered_count + ${sent}::int,
        next_attempt_at = now() + ${delayMs}::int * interval '1 millisecond', locked_until = NULL
      WHERE id = ${endpoint.id}::uuid AND (extract(epoch FROM locked_until) * 1000)::bigint = ${endpoint.lease}::bigint`;
    if (updated === 0) this.logger.warn({ endpointId: endpoint.id }, 'webhook endpoint re-claimed during delivery (lease too short?)');
  }
}

function describe(result: DeliveryResult): string {
  return (result.status ? `HTTP ${result.status}: ${result.excerpt}` : result.excerpt).slice(0, 600);
}
