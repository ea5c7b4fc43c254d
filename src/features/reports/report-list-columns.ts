/**
 * The columns a list of reports is sorted and grouped by: named by the filter arguments (the
 * `order_by` rule), by the SQL that builds a page (report-query.ts) and by the counters
 * (report-key-counts.ts). Here, below all three, so that none of them imports another to learn them.
 */

/** The fields `order_by` accepts, in the order its description lists them. */
export const REPORT_ORDER_FIELDS = [
  'created_at',
  'updated_at',
  'token',
  'type',
  'vin',
  'license_number',
  'brand',
  'dealership_name',
] as const;

/** The grouping columns a page of reports can be partitioned by (relations Dealership.reports, User.reports). */
export type ReportGroupColumn = 'dealership_id' | 'profile_id';
