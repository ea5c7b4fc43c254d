/**
 * One signed POST to a receiver (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature). Short timeout, no redirects (a 3xx is a failure), at most `EXCERPT_BYTES`
 * of the response kept, the address checked by `guardedLookup` (or directly for an IP literal).
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DestinationRefused, guardedLookup, isPrivateAddress } from './destination';

export const EXCERPT_BYTES = 512;

export interface WebhookMessage {
  /** the same on every attempt: receivers deduplicate on it */
  id: string;
  body: string;
  /** W3C trace context of the delivery's span (tracing on): the receiver may continue the trace */
  traceparent?: string;
}

export interface DeliveryResult {
  ok: boolean;
  status?: number;
  /** the start of the response body, or why nothing came back */
  excerpt: string;
}

export function signedHeaders(secret: string, message: WebhookMessage, now = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'vehicle-report-webhooks/1',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(message.id, now, message.body),
    ...(message.traceparent ? { traceparent: message.traceparent } : {}),
  };
}

export function deliver(
  url: string,
  secret: string,
  message: WebhookMessage,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<DeliveryResult> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve({ ok: false, excerpt: 'invalid URL' });
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) {
      return resolve({ ok: false, excerpt: `refused: ${host} is not a public address` });
    }
    const client = target.protocol === 'https:' ? https : http;
    const request = client.request(target, {
      method: 'POST',
      headers: signedHeaders(secret, message),
      lookup: guardedLookup(options.allowPrivate),
      timeout: options.timeoutMs,
      agent: false,
    });
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    const finish = (result: DeliveryResult) => {
      clearTimeout(deadline);
      resolve(result);
    };
    request.on('timeout', () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)));
    request.on('error', (error) =>
      finish({ ok: false, excerpt: error instanceof DestinationRefused ? `refused: ${error.message}` : error.message.slice(0, 200) }),
    );
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const status = response.statusCode ?? 0;
        finish({ ok: status >= 200 && status < 300, status, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_BYTES) });
      };
      response.on('data', (chunk: Buffer) => {
        if (size < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - size));
        size += chunk.length;
        // Nothing beyond the excerpt is read: a huge body costs nothing.
        if (size >= EXCERPT_BYTES) {
          response.destroy();
          done();
        }
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(message.body);
  });
}
