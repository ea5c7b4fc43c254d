/**
 * Recipients as shown to API clients and written to logs: enough to recognise them, never the
 * whole address or number.
 */

/** `jane.doe@example.com` → `j***@example.com` */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

/** `+33612345678` → `+3361****78`; a fixed run of stars hides the length too. */
export function maskPhone(phone: string): string {
  if (phone.length < 8) return '****';
  return `${phone.slice(0, 5)}****${phone.slice(-2)}`;
}

export function maskRecipient(channel: 'email' | 'sms', recipient: string): string {
  return channel === 'email' ? maskEmail(recipient) : maskPhone(recipient);
}
