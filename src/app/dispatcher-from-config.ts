import type { AppConfig } from './config';
import type { Database } from '../platform/db/database';
import type { Logger } from '../platform/logger';
import { channelSendersFromConfig } from '../features/notifications/channels';
import { startEventPruning } from '../features/events/event-retention';
import { WebhookDispatcher, type WebhookMetrics } from '../features/webhooks/webhook-dispatcher';
import { OutboxDispatcher, type DispatcherMetrics } from '../features/notifications/dispatcher';

export type RunningDispatcher = ReturnType<typeof startDispatcher>;

/** A dispatcher over `db` with the configured channels, already started. */
export function startDispatcher(db: Database, config: AppConfig, logger: Logger, metrics?: DispatcherMetrics & WebhookMetrics) {
  const senders = channelSendersFromConfig(config, logger);
  const dispatcher = new OutboxDispatcher(db.prisma, senders, config.dispatcher, logger, metrics);
  dispatcher.start();
  logger.info({ email: senders.email.target, sms: senders.sms.target }, 'outbox dispatcher started');
  // The background work of the change feed runs beside the dispatcher, wherever that runs.
  const pruning = startEventPruning(
    db.prisma,
    { retentionDays: config.events.retentionDays, intervalMs: config.events.pruneIntervalMs },
    logger,
  );
  const webhooks = new WebhookDispatcher(db.prisma, config.webhooks, logger, metrics);
  webhooks.start();
  return {
    /** Stops the dispatcher (waiting for its batch) and closes the channels' connections. */
    async stop() {
      await webhooks.stop();
      await pruning.stop();
      await dispatcher.stop();
      await Promise.all(Object.values(senders).map((sender) => sender.close?.()));
    },
  };
}
