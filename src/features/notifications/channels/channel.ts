import type { NotificationPayload } from '../notification-payload';

export type ChannelName = 'email' | 'sms';

/** One outbox row as a channel sees it. */
export interface OutboxMessage {
  /** outbox row id: the provider's reference and idempotency key */
  id: string;
  channel: ChannelName;
  /** e-mail address or E.164 number */
  recipient: string;
  payload: NotificationPayload;
}

/** Delivers one message or throws; the error's message becomes the attempt's `error`. */
export interface ChannelSender {
  /** for the start-up log line, e.g. `smtp://mail.example.com:587` (no credentials) */
  readonly target: string;
  send(message: OutboxMessage, signal: AbortSignal): Promise<void>;
  close?(): Promise<void> | void;
}

export type ChannelSenders = Record<ChannelName, ChannelSender>;
