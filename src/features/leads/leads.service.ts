/**
 * Lead creation (docs/api-behaviour.md, "Lead creation"): in ONE transaction, take a quota unit
 * from the entity, create the client Contact and the remote Report, and queue one notification
 * per requested channel in the outbox. Nothing is sent inline: the dispatcher delivers the outbox.
 * The arguments arrive checked and normalized (e-mail, E.164 phone) by the validation pass.
 */
import { randomUUID } from 'node:crypto';
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { invalidValue, notFound, quotaExhausted } from '../../shared/errors';
import type { NotificationPayload } from '../notifications/notification-payload';
import { smsSegments } from '../notifications/sms-encoding';
import { renderSms } from '../notifications/templates';
import { activeTraceparent } from '../../platform/tracing/tracing';
import { recordResponse, replayOrConflict, requestHash } from './lead-idempotency';
import type { CreateLeadArgs, CreatedLead } from './lead.types';

/** An SMS longer than this many parts is refused: each part is billed, and no invitation needs more. */
export const MAX_SMS_SEGMENTS = 10;

export interface CreateLeadRequest {
  organizationId: string;
  args: CreateLeadArgs;
  appBaseUrl: string;
  idempotencyKey?: string;
}

/**
 * Takes one unit of the entity's remote quota, starting a new period first when the current one
 * is over. A single conditional UPDATE: concurrent leads can never exceed the quota.
 */
async function takeQuotaUnit(tx: Prisma.TransactionClient, entityId: string): Promise<boolean> {
  const taken = await tx.$executeRaw`
    UPDATE entities SET
      remote_quota_used = CASE WHEN period_over THEN 1 ELSE remote_quota_used + 1 END,
      quota_period_start = CASE WHEN period_over THEN now() ELSE quota_period_start END,
      updated_at = now()
    FROM (
      SELECT id AS entity_id, now() >= quota_period_start + make_interval(months => quota_period_months) AS period_over
      FROM entities WHERE id = ${entityId}::uuid
    ) period
    WHERE entities.id = period.entity_id
      AND remote_quota > 0
      AND (period.period_over OR remote_quota_used < remote_quota)`;
  return taken === 1;
}

function leadDocument(token: string, input: CreateLeadArgs, dealershipId: string, now: Date) {
  return {
    data: {
      vehicle: {},
      metadata: {
        date: now.toISOString(),
        name: input.folder_name ?? null,
        type: 'remote',
        token,
        creator: null,
        dealership: dealershipId,
        individual: { name: input.name ?? null, email: input.email ?? null, phone: input.phone ?? null },
      },
      valuations: {},
      visualization: { audios: [], videos: [], damages: [], three_d: [], documents: [], marketing: [] },
    },
    state: {
      folder_created: { name: 'folder_created', order: 1, status: true, description: 'Folder created', date: now.toISOString() },
    },
  };
}

export async function createLead(prisma: PrismaClient, request: CreateLeadRequest): Promise<CreatedLead> {
  const { organizationId, args: input, appBaseUrl, idempotencyKey } = request;
  const dealership = await prisma.dealership.findFirst({
    where: { id: input.dealership.toLowerCase(), organization_id: organizationId },
    select: { id: true, name: true, entity_id: true, organization: { select: { name: true } } },
  });
  if (!dealership) throw notFound('Dealership not found');

  // A UUID's case does not make it another dealership: the same request must replay, not conflict.
  const hash = requestHash({ ...input, dealership: input.dealership.toLowerCase() });
  if (idempotencyKey) {
    const replay = await replayOrConflict(prisma, organizationId, idempotencyKey, hash);
    if (replay) return replay;
  }

  const token = randomUUID();
  const link = `${appBaseUrl}/reports/${token}`;
  const payload: NotificationPayload = {
    lang: input.lang,
    link,
    client_name: input.name ?? null,
    dealership: dealership.name,
    organization: dealership.organization.name,
    folder_name: input.folder_name ?? null,
    custom_sms: input.custom_sms ?? null,
  };
  if (input.sendPhone) checkSmsLength(payload);

  try {
    const traceparent = activeTraceparent();
    return await prisma.$transaction(async (tx) => {
      // With tracing on, the rows this transaction writes (outbox, events) name the request's trace
      // (their trace_context columns default to this setting): their deliveries continue it.
      if (traceparent) await tx.$queryRaw`SELECT set_config('vr.trace_context', ${traceparent}, true)`;
      if (!(await takeQuotaUnit(tx, dealership.entity_id))) throw quotaExhausted();
      const now = new Date();
      const contact = await tx.contact.create({
        data: { organization_id: organizationId, name: input.name, email: input.email, phone: input.phone },
        select: { id: true },
      });
      const document = leadDocument(token, input, dealership.id, now);
      await tx.report.create({
        data: {
          token,
          created_at: now,
          updated_at: now,
          organization_id: organizationId,
          entity_id: dealership.entity_id,
          dealership_id: dealership.id,
          profile_id: null,
          contact_id: contact.id,
          type: 'remote',
          valid: true,
          data: document.data,
          state: document.state,
        },
        select: { token: true },
      });
      const outbox = (
        [
          ['email', input.sendEmail && input.email],
          ['sms', input.sendPhone && input.phone],
        ] as const
      ).flatMap(([channel, recipient]) =>
        recipient ? [{ report_token: token, organization_id: organizationId, channel, recipient, payload: { ...payload } }] : [],
      );
      if (outbox.length > 0) await tx.notificationOutbox.createMany({ data: outbox });

      const response: CreatedLead = { token, link };
      if (idempotencyKey) await recordResponse(tx, organizationId, idempotencyKey, hash, response);
      return response;
    });
  } catch (error) {
    // Two requests with the same key at once: the loser replays the winner's response.
    if (idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const replay = await replayOrConflict(prisma, organizationId, idempotencyKey, hash);
      if (replay) return replay;
    }
    throw error;
  }
}

/**
 * The SMS as it will be sent (placeholders filled, link appended) must stay a few parts long: a
 * template of repeated `{name}` could otherwise make one lead bill thousands of parts.
 */
function checkSmsLength(payload: NotificationPayload): void {
  const { segments } = smsSegments(renderSms(payload));
  if (segments <= MAX_SMS_SEGMENTS) return;
  const field = payload.custom_sms ? 'custom_sms' : 'name';
  throw invalidValue(
    field,
    field === 'custom_sms' ? payload.custom_sms : payload.client_name,
    `the SMS would take ${segments} parts once its placeholders are filled; at most ${MAX_SMS_SEGMENTS}`,
  );
}
