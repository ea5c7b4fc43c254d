/**
 * Prunes the change feed to its retention (EVENT_RETENTION_DAYS, docs/events.md) at start and
 * then every `intervalMs`, wherever the outbox dispatcher runs (the API or `npm run worker`).
 * Several instances pruning at once only delete the same old rows.
 */
import type { PrismaClient } from '../../generated/prisma/client';
import type { Logger } from '../../platform/logger';
import { pruneEvents } from './events.service';

export interface EventRetentionConfig {
  retentionDays: number;
  intervalMs: number;
}

export function startEventPruning(prisma: PrismaClient, config: EventRetentionConfig, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const prune = () => {
    running = pruneEvents(prisma, config.retentionDays).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted, retentionDays: config.retentionDays }, 'pruned old events');
      },
      (error: unknown) => logger.error({ err: error }, 'pruning old events failed; next try at the next interval'),
    );
  };
  prune();
  const timer = setInterval(prune, config.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
