/**
 * Webhook endpoints of an organization (docs/events.md, "Webhooks"): plain inputs and outputs,
 * for the admin CLI and the API. Every function takes the organization: one never reaches
 * another's endpoint.
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client';
import { invalidValue, notFound } from '../../shared/errors';
import { encodeCursor } from '../events/event-cursor';
import { parseAfter, parseEventTypes } from '../events/events.service';
import { destinationProblem } from './destination';
import type { WebhookEndpointType, WebhookEndpointWithSecretType } from './webhook.types';

const SELECT = `id::text AS id, url, types, status::text AS status, cursor_xid, cursor_position::text AS cursor_position, attempts,
  next_attempt_at, last_error, delivered_count::text AS delivered_count, created_at,
  (SELECT count(*)::int FROM webhook_dead_letters d WHERE d.endpoint_id = webhook_endpoints.id) AS dead_letters`;

interface EndpointRow extends Omit<WebhookEndpointType, 'cursor' | 'delivered_count'> {
  cursor_xid: string;
  cursor_position: string;
  delivered_count: string;
}

const view = (row: EndpointRow): WebhookEndpointType => {
  const { cursor_xid, cursor_position, delivered_count, ...rest } = row;
  return {
    ...rest,
    cursor: encodeCursor({ xid: BigInt(cursor_xid), position: BigInt(cursor_position) }),
    delivered_count: Number(delivered_count),
  };
};

export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export async function createWebhookEndpoint(
  prisma: PrismaClient,
  organizationId: string,
  input: { url: string; types?: string | null; after?: string | null },
  options: { allowPrivate: boolean },
): Promise<WebhookEndpointWithSecretType> {
  const url = input.url.trim();
  const problem = url.length > 2000 ? 'at most 2000 characters' : await destinationProblem(url, options.allowPrivate);
  if (problem) throw invalidValue('url', input.url, problem, problem);
  const types = parseEventTypes(input.types) ?? [];
  const secret = newSecret();
  // Without `after`, delivery starts with what commits from now on (the feed's horizon).
  const start = input.after ? parseAfter(input.after) : undefined;
  const rows = await prisma.$queryRawUnsafe<EndpointRow[]>(
    `INSERT INTO webhook_endpoints (id, organization_id, url, secret, types, cursor_xid, cursor_position, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, $2, $3, $4::text[],
       COALESCE($5, pg_snapshot_xmin(pg_current_snapshot())::text), COALESCE($6::bigint, 0), now())
     RETURNING ${SELECT}`,
    organizationId,
    url,
    secret,
    types,
    start ? start.xid.toString() : null,
    start ? start.position.toString() : null,
  );
  return { ...view(rows[0]!), secret };
}

export async function listWebhookEndpoints(prisma: PrismaClient, organizationId: string): Promise<WebhookEndpointType[]> {
  const rows = await prisma.$queryRawUnsafe<EndpointRow[]>(
    `SELECT ${SELECT} FROM webhook_endpoints WHERE organization_id = $1::uuid ORDER BY created_at, id`,
    organizationId,
  );
  return rows.map(view);
}

async function updateOne(prisma: PrismaClient, organizationId: string, id: string, set: string, params: unknown[] = []) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound('Webhook endpoint not found');
  const rows = await prisma.$queryRawUnsafe<EndpointRow[]>(
    `UPDATE webhook_endpoints SET ${set}, updated_at = now() WHERE id = $1::uuid AND organization_id = $2::uuid RETURNING ${SELECT}`,
    id,
    organizationId,
    ...params,
  );
  if (rows.length === 0) throw notFound('Webhook endpoint not found');
  return view(rows[0]!);
}

/** A new secret, effective for the next delivery; the old one stops signing at once. */
export async function rotateWebhookSecret(prisma: PrismaClient, organizationId: string, id: string) {
  const secret = newSecret();
  return { ...(await updateOne(prisma, organizationId, id, 'secret = $3', [secret])), secret };
}

export function disableWebhookEndpoint(prisma: PrismaClient, organizationId: string, id: string) {
  return updateOne(prisma, organizationId, id, `status = 'disabled', locked_until = NULL`);
}

/**
 * Delivers again from `after` (a feed cursor: the event before the first to send again, e.g. a
 * dead letter's predecessor; none: from the oldest dead letter) and re-enables the endpoint.
 * Events keep their webhook-id: receivers that saw them already can tell.
 */
export async function redeliverWebhook(prisma: PrismaClient, organizationId: string, id: string, after?: string | null) {
  if (after) {
    const cursor = parseAfter(after);
    return updateOne(
      prisma,
      organizationId,
      id,
      `status = 'enabled', cursor_xid = $3, cursor_position = $4::bigint, attempts = 0, next_attempt_at = now(), last_error = NULL`,
      [cursor.xid.toString(), cursor.position.toString()],
    );
  }
  // From just before the oldest dead letter: (its xid, its position - 1) is where the feed would resume.
  const endpoint = await updateOne(
    prisma,
    organizationId,
    id,
    `status = 'enabled', attempts = 0, next_attempt_at = now(), last_error = NULL,
     (cursor_xid, cursor_position) = (
       SELECT COALESCE(min(e.xid)::text, webhook_endpoints.cursor_xid),
              COALESCE((array_agg(e.position ORDER BY e.xid, e.position))[1] - 1, webhook_endpoints.cursor_position)
       FROM webhook_dead_letters d JOIN events e ON e.position = d.event_position WHERE d.endpoint_id = webhook_endpoints.id)`,
  );
  // They are on their way again; if they fail again they come back.
  await prisma.$executeRaw`DELETE FROM webhook_dead_letters WHERE endpoint_id = ${id}::uuid`;
  return { ...endpoint, dead_letters: 0 };
}
