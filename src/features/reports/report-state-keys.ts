/** The 14 keys of a full report's `state` (spec 3), in the order of ReportState's fields. */
export const REPORT_STATE_KEYS = [
  'folder_created',
  'folder_estimated',
  'folder_accepted',
  'folder_rejected',
  'folder_instock',
  'folder_sold',
  'folder_closed',
  'folder_completed',
  'folder_archived',
  'folder_relisted',
  'folder_remarketed',
  'folder_rehabilitated',
  'counter_inspected',
  'customer_notified',
] as const;

export type ReportStateKey = (typeof REPORT_STATE_KEYS)[number];
