/**
 * The notification outbox's backlog, read from the database when Prometheus scrapes: what every
 * dispatcher (in-process or `npm run worker`, any number of them) has left, not what one process
 * saw. One grouped query over the (status, next_attempt_at) index, shared by both gauges.
 */
import { Gauge, type Registry } from 'prom-client';
import type { PrismaClient } from '../../generated/prisma/client';
import { NotificationChannel } from '../../generated/prisma/enums';
import type { Logger } from '../../platform/logger';

/** Sent rows are done: the backlog is what still waits (pending) or gave up (failed). */
const BACKLOG_STATUSES = ['pending', 'failed'] as const;

interface BacklogRow {
  channel: NotificationChannel;
  status: (typeof BACKLOG_STATUSES)[number];
  count: number;
  oldest_age_seconds: number;
}

export function registerOutboxBacklog(registry: Registry, prisma: PrismaClient, logger: Logger): void {
  const backlog = new Gauge({
    name: 'vr_notification_outbox_messages',
    help: 'Notifications in the outbox not sent yet, by channel and status (pending: to be sent or retried; failed: gave up).',
    labelNames: ['channel', 'status'] as const,
    registers: [registry],
    collect: () => refresh(),
  });
  const oldestPending = new Gauge({
    name: 'vr_notification_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest pending notification, by channel (0 when none is pending).',
    labelNames: ['channel'] as const,
    registers: [registry],
    collect: () => refresh(),
  });

  const read = async () => {
    // Every series exists from the first scrape on, at 0 until something is queued.
    backlog.reset();
    oldestPending.reset();
    for (const channel of Object.values(NotificationChannel)) {
      oldestPending.set({ channel }, 0);
      for (const status of BACKLOG_STATUSES) backlog.set({ channel, status }, 0);
    }
    try {
      const rows = await prisma.$queryRaw<BacklogRow[]>`
        SELECT channel::text AS channel, status::text AS status, count(*)::int AS count,
          extract(epoch FROM now() - min(created_at))::float8 AS oldest_age_seconds
        FROM notification_outbox
        WHERE status IN ('pending', 'failed')
        GROUP BY channel, status`;
      for (const row of rows) {
        backlog.set({ channel: row.channel, status: row.status }, row.count);
        if (row.status === 'pending') oldestPending.set({ channel: row.channel }, Math.max(0, row.oldest_age_seconds));
      }
    } catch (error) {
      // The database being away must not take the other metrics down with it.
      backlog.reset();
      oldestPending.reset();
      logger.warn({ err: error }, 'metrics: could not read the notification outbox backlog');
    }
  };

  // prom-client collects all metrics of a scrape at once: both gauges share one query.
  let inFlight: Promise<void> | undefined;
  const refresh = () => (inFlight ??= read().finally(() => (inFlight = undefined)));
}
