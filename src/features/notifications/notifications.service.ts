import type { PrismaClient } from '../../generated/prisma/client';
import { deliveryReason } from './delivery-reason';
import { maskRecipient } from './masking';
import type { Notification } from './notification.types';

/** The notifications of each report (oldest first), within one organization, in one query. */
export async function notificationsByReport(
  prisma: PrismaClient,
  organizationId: string,
  reportTokens: readonly string[],
): Promise<Notification[][]> {
  const rows = await prisma.notificationOutbox.findMany({
    where: { organization_id: organizationId, report_token: { in: [...reportTokens] } },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      report_token: true,
      channel: true,
      recipient: true,
      status: true,
      attempts: true,
      last_error: true,
      sent_at: true,
      created_at: true,
    },
  });
  const byReport = new Map<string, Notification[]>(reportTokens.map((token) => [token, []]));
  for (const { report_token, recipient, last_error, ...row } of rows) {
    byReport.get(report_token)?.push({
      ...row,
      last_error: deliveryReason(last_error),
      recipient: maskRecipient(row.channel, recipient),
    });
  }
  return reportTokens.map((token) => byReport.get(token)!);
}
