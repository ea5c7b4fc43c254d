/**
 * Events written, for Prometheus: the triggers write them inside other transactions (the inspection
 * app's included), so no process of ours sees each one. The events' position sequence does: its
 * last value is the newest position handed out, and its increase over time is the events written
 * (all organizations; a rolled-back transaction's positions count too, as its gap in the feed).
 */
import { Gauge, type Registry } from 'prom-client';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Logger } from '../../platform/logger';

export function registerEventsWritten(registry: Registry, prisma: PrismaClient, logger: Logger): void {
  new Gauge({
    name: 'vr_events_last_position',
    help: 'Newest position handed out to a change-feed event (all organizations): its increase is the events written.',
    registers: [registry],
    async collect() {
      try {
        const [row] = await prisma.$queryRaw<{ position: bigint | number | null }[]>`
          SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS position FROM events_position_seq`;
        this.set(Number(row?.position ?? 0));
      } catch (error) {
        // A scrape must not fail for it: the series keeps its last value.
        logger.warn({ err: error }, 'could not read the events position for metrics');
      }
    },
  });
}
