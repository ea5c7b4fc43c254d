/**
 * Recipients as shown to API clients and written to logs: enough to recognise them, never the
 * whole address or number. `jane.doe@example.com` → `j***@example.com`; `+33612345678` →
 * `+3361****78` (a fixed run of stars hides the length too).
 */
export function maskRecipient(channel: 'email' | 'sms', recipient: string): string {
  if (channel === 'sms') return recipient.length < 8 ? '****' : `${recipient.slice(0, 5)}****${recipient.slice(-2)}`;
  const at = recipient.lastIndexOf('@');
  return at <= 0 ? '***' : `${recipient[0]}***${recipient.slice(at)}`;
}
