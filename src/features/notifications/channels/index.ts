/** The channel senders the configuration asks for; a channel without its settings writes to the local outbox file. */
import type { Logger } from '../../../platform/logger';
import type { ChannelSenders } from './channel';
import { smtpEmailSender } from './email-smtp';
import { outboxFileSender } from './outbox-file';
import { httpSmsSender } from './sms-http';

export type { ChannelName, ChannelSender, ChannelSenders, OutboxMessage } from './channel';

/** Where notifications go: SMTP and an SMS provider when configured, else the local outbox file. */
export interface ChannelSettings {
  smtpUrl?: string;
  mailFrom: string;
  smsApiUrl?: string;
  smsApiToken?: string;
  dataDir: string;
  dispatcher: { sendTimeoutMs: number };
}

export function channelSendersFromConfig(config: ChannelSettings, logger: Logger): ChannelSenders {
  return {
    email: config.smtpUrl
      ? smtpEmailSender({ smtpUrl: config.smtpUrl, from: config.mailFrom, timeoutMs: config.dispatcher.sendTimeoutMs })
      : outboxFileSender('email', { dataDir: config.dataDir, logger }),
    sms: config.smsApiUrl
      ? httpSmsSender({ url: config.smsApiUrl, token: config.smsApiToken })
      : outboxFileSender('sms', { dataDir: config.dataDir, logger }),
  };
}
