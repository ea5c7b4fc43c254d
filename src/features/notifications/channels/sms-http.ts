/**
 * SMS channel: a JSON POST to the provider at `SMS_API_URL` with a bearer token. The outbox row id
 * is both the message reference and the Idempotency-Key, so a retry after a lost answer does not
 * send a second SMS with providers that honour it. Any 2xx answer means accepted.
 */
import { smsSegments } from '../sms-encoding';
import { renderSms } from '../templates';
import type { ChannelSender, OutboxMessage } from './channel';

/** The request body the provider receives. */
export interface SmsProviderRequest {
  /** E.164 */
  to: string;
  text: string;
  /** outbox row id */
  reference: string;
  segments: number;
  encoding: 'GSM-7' | 'UCS-2';
}

export function httpSmsSender(options: { url: string; token?: string }): ChannelSender {
  const url = new URL(options.url);
  return {
    target: `${url.protocol}//${url.host}${url.pathname}`,
    async send(message: OutboxMessage, signal: AbortSignal) {
      const text = renderSms(message.payload);
      const { segments, encoding } = smsSegments(text);
      const body: SmsProviderRequest = { to: message.recipient, text, reference: message.id, segments, encoding };
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': message.id,
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
      if (!response.ok) {
        // The provider's own words help the operator; bounded, and never the message itself.
        const detail = (await response.text().catch(() => '')).slice(0, 200);
        throw new Error(`SMS provider answered ${response.status}${detail ? `: ${detail}` : ''}`);
      }
      await response.body?.cancel().catch(() => undefined);
    },
  };
}
