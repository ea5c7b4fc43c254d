/**
 * A webhook receiver for the change feed (docs/events.md, "Webhooks"): verifies every request
 * with the Standard Webhooks scheme, ignores repeats of a webhook-id, answers 204 quickly.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4000 npx tsx examples/webhook-receiver.ts
 *   npm run admin -- webhook:create --org ORG --url http://127.0.0.1:4000/hooks
 *
 * A production receiver keeps the seen ids (and the last processed `data.cursor`) in its own
 * database, in the transaction that applies the event.
 */
import http from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET to the whsec_... secret printed by webhook:create');
const webhook = new Webhook(secret);
const seen = new Set<string>();

interface ChangeEvent {
  type: string;
  timestamp: string;
  data: { cursor: string; position: string; subject: string; payload: unknown };
}

http
  .createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // Verify the raw body exactly as received: re-serialized JSON would not match the signature.
      const body = Buffer.concat(chunks).toString('utf8');
      let event: ChangeEvent;
      try {
        event = webhook.verify(body, request.headers as Record<string, string>) as ChangeEvent;
      } catch (error) {
        response.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
        return;
      }
      const id = request.headers['webhook-id'] as string;
      if (!seen.has(id)) {
        seen.add(id);
        console.log(`${event.timestamp} ${event.type} report ${event.data.subject}`, JSON.stringify(event.data.payload));
      }
      // Any 2xx acknowledges; anything else is retried later, with the same webhook-id.
      response.writeHead(204).end();
    });
  })
  .listen(Number(process.env.PORT ?? 4000), () => console.log(`listening on ${process.env.PORT ?? 4000}`));
