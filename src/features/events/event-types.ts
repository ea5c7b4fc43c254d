/**
 * The event types the database triggers write (migration `*_events`; docs/events.md describes
 * each payload). Kept here so that a `types` filter naming anything else is refused.
 */
import { REPORT_STATE_KEYS } from '../reports/report-state-keys';

export const EVENT_TYPES: readonly string[] = [
  'report.created',
  'report.updated',
  'report.deleted',
  'report.validity_changed',
  ...REPORT_STATE_KEYS.map((key) => `report.${key}`),
  'notification.delivered',
  'notification.failed',
];
