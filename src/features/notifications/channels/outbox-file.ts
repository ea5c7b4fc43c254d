/**
 * The channel of a development machine with no SMTP server or SMS provider configured: each
 * message becomes one JSON line in `${DATA_DIR}/outbox.log` (full text, to read the message), and
 * one log line with the recipient masked (logs are shipped elsewhere; the file stays local).
 */
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../../platform/logger';
import { maskRecipient } from '../masking';
import { smsSegments } from '../sms-encoding';
import { renderEmail, renderSms } from '../templates';
import type { ChannelName, ChannelSender, OutboxMessage } from './channel';

export function outboxFileSender(channel: ChannelName, options: { dataDir: string; logger: Logger }): ChannelSender {
  const file = path.join(options.dataDir, 'outbox.log');
  return {
    target: `file ${file}`,
    async send(message: OutboxMessage) {
      const content =
        channel === 'email'
          ? renderEmail(message.payload)
          : (() => {
              const text = renderSms(message.payload);
              return { text, ...smsSegments(text) };
            })();
      const line = { at: new Date().toISOString(), id: message.id, channel, to: message.recipient, ...content };
      await mkdir(options.dataDir, { recursive: true });
      await appendFile(file, `${JSON.stringify(line)}\n`, 'utf8');
      options.logger.info(
        { outboxId: message.id, channel, recipient: maskRecipient(channel, message.recipient), file },
        `${channel} written to the local outbox file (no ${channel === 'email' ? 'SMTP_URL' : 'SMS_API_URL'} configured)`,
      );
    },
  };
}
