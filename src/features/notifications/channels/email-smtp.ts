/** E-mail channel: one SMTP connection pool (nodemailer) to `SMTP_URL`. */
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { renderEmail } from '../templates';
import type { ChannelSender, OutboxMessage } from './channel';

export function smtpEmailSender(options: { smtpUrl: string; from: string; timeoutMs: number }): ChannelSender {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: true,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  } satisfies SMTPTransport.Options);
  const url = new URL(options.smtpUrl);
  return {
    target: `${url.protocol}//${url.host}`,
    async send(message: OutboxMessage, signal: AbortSignal) {
      const content = renderEmail(message.payload);
      const sending = transport.sendMail({
        from: options.from,
        to: message.recipient,
        subject: content.subject,
        text: content.text,
        html: content.html,
        // The outbox row id: a receiving system can recognise a redelivery.
        messageId: `<${message.id}@vehicle-report.outbox>`,
        headers: { 'X-Outbox-Id': message.id },
      });
      await abortable(sending, signal);
    },
    close: () => transport.close(),
  };
}

/** nodemailer takes no AbortSignal: stop waiting (the socket timeouts end the connection). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('send timed out'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('send timed out'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
