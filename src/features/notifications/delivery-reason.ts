/**
 * What a tenant is told about a failed delivery: a coarse reason. The provider's own words (SMTP
 * replies, HTTP bodies, host names and ports of our infrastructure) stay in
 * `notification_attempts` and the dispatcher's log, for the operator.
 */
const REASONS: [RegExp, string][] = [
  [/timed? ?out|timeout|abort/i, 'the provider did not answer in time; retrying'],
  [
    /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|socket|connect/i,
    'the provider could not be reached; retrying',
  ],
  [/\b(4\d\d)\b/, 'the provider refused the message'],
  [/\b(5\d\d)\b/, 'the provider failed to accept the message'],
];

export const GENERIC_DELIVERY_REASON = 'the message could not be delivered';

export function deliveryReason(lastError: string | null): string | null {
  if (lastError === null) return null;
  return REASONS.find(([pattern]) => pattern.test(lastError))?.[1] ?? GENERIC_DELIVERY_REASON;
}
