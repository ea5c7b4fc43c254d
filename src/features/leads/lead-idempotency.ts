/**
 * `Idempotency-Key` for lead creation: the same key with the same body within 24 h returns the
 * first response and creates nothing; the same key with another body is a conflict.
 */
import { createHash } from 'node:crypto';
import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import { conflict } from '../../shared/errors';
import type { CreatedLead } from './lead.types';

export const IDEMPOTENCY_WINDOW_HOURS = 24;

const windowStart = () => new Date(Date.now() - IDEMPOTENCY_WINDOW_HOURS * 3_600_000);

/** Same key, same body: a digest of the arguments with their keys sorted. */
export function requestHash(args: object): string {
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(args).sort(([a], [b]) => a.localeCompare(b))));
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * The response the key already got, null when the key is new (or older than the window).
 *
 * The key's row is read with FOR KEY SHARE, a row lock: a write. A replay answers 201 again, so
 * it must be as durable as the first answer, and a plain read is not: a primary cut off from its
 * synchronous standby holds commits it never replicated, which become visible when Patroni
 * demotes it (their wait for the standby is cancelled) and stay visible while it restarts
 * read-only; a read there replayed a lead that the failover then rewound away (found by the
 * partition nemesis, test/failover/nemeses.test.ts). The lock fails on a standby (25006: a 503),
 * and on a primary its commit waits for the synchronous standby like any write's, and WAL is in
 * order: once it is acknowledged, so is the report it replays.
 */
export async function replayOrConflict(
  prisma: Prisma.TransactionClient | PrismaClient,
  organizationId: string,
  key: string,
  hash: string,
): Promise<CreatedLead | null> {
  const [previous] = await prisma.$queryRaw<{ request_hash: string; response_body: unknown; created_at: Date }[]>`
    SELECT request_hash, response_body, created_at FROM idempotency_keys
     WHERE organization_id = ${organizationId}::uuid AND key = ${key}
       FOR KEY SHARE`;
  if (!previous || new Date(previous.created_at) < windowStart()) return null;
  if (previous.request_hash !== hash) throw conflict('Idempotency-Key was already used with a different request body');
  return previous.response_body as unknown as CreatedLead;
}

/** Records the response under the key, in the transaction that made it (an expired use is replaced). */
export async function recordResponse(
  tx: Prisma.TransactionClient,
  organizationId: string,
  key: string,
  hash: string,
  response: CreatedLead,
): Promise<void> {
  await tx.idempotencyKey.deleteMany({ where: { organization_id: organizationId, key, created_at: { lt: windowStart() } } });
  await tx.idempotencyKey.create({
    data: { organization_id: organizationId, key, request_hash: hash, status_code: 201, response_body: { ...response } },
  });
}
