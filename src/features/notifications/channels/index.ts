/** The channel senders the configuration asks for; a channel without its settings writes to the local outbox file. */
import type { AppConfig } from '../../../app/config';
import type { Logger } from '../../../platform/logger';
import type { ChannelSenders } from './channel';
import { smtpEmailSender } from './email-smtp';
import { outboxFileSender } from './outbox-file';
import { httpSmsSender } from './sms-http';

export type { ChannelName, ChannelSender, ChannelSenders, OutboxMessage } from './channel';

export function channelSendersFromConfig(
  config: Pick<AppConfig, 'smtpUrl' | 'mailFrom' | 'smsApiUrl' | 'smsApiToken' | 'dataDir' | 'dispatcher'>,
  logger: Logger,
): ChannelSenders {
  return {
    email: config.smtpUrl
      ? smtpEmailSender({ smtpUrl: config.smtpUrl, from: config.mailFrom, timeoutMs: config.dispatcher.sendTimeoutMs })
      : outboxFileSender('email', { dataDir: config.dataDir, logger }),
    sms: config.smsApiUrl
      ? httpSmsSender({ url: config.smsApiUrl, token: config.smsApiToken })
      : outboxFileSender('sms', { dataDir: config.dataDir, logger }),
  };
}
