/**
 * What a request may have written: the row count of every table, and the quota units taken
 * (`entities.remote_quota_used`, an UPDATE rather than a row). One statement, read before and
 * after a request; a rejected request must leave every figure unchanged.
 */
import type { Database } from '../../src/platform/db/database';

export interface RowCounts {
  organizations: number;
  entities: number;
  dealerships: number;
  users: number;
  api_keys: number;
  contacts: number;
  reports: number;
  notification_outbox: number;
  notification_attempts: number;
  idempotency_keys: number;
  /** sum of `entities.remote_quota_used` */
  quota_used: number;
}

export async function countRows(db: Database): Promise<RowCounts> {
  const [row] = await db.prisma.$queryRaw<RowCounts[]>`
    SELECT
      (SELECT count(*) FROM organizations)::int AS organizations,
      (SELECT count(*) FROM entities)::int AS entities,
      (SELECT count(*) FROM dealerships)::int AS dealerships,
      (SELECT count(*) FROM users)::int AS users,
      (SELECT count(*) FROM api_keys)::int AS api_keys,
      (SELECT count(*) FROM contacts)::int AS contacts,
      (SELECT count(*) FROM reports)::int AS reports,
      (SELECT count(*) FROM notification_outbox)::int AS notification_outbox,
      (SELECT count(*) FROM notification_attempts)::int AS notification_attempts,
      (SELECT count(*) FROM idempotency_keys)::int AS idempotency_keys,
      (SELECT coalesce(sum(remote_quota_used), 0) FROM entities)::int AS quota_used`;
  return row!;
}

export function rowDelta(before: RowCounts, after: RowCounts): Partial<RowCounts> {
  const delta: Partial<RowCounts> = {};
  for (const key of Object.keys(before) as (keyof RowCounts)[]) {
    if (after[key] !== before[key]) delta[key] = after[key] - before[key];
  }
  return delta;
}
