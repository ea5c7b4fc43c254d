/**
 * Test doubles of the outside world only (an SMS provider over HTTP, an SMTP server), and small
 * helpers over the real application and database.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { DispatcherConfig } from '../../src/app/config';
import { logger } from '../../src/platform/logger';
import type { TestServer } from '../support/server';

/** A dispatcher configuration for tests: fast polls, tiny backoff. */
export const FAST_DISPATCHER: DispatcherConfig = {
  pollIntervalMs: 20,
  batchSize: 5,
  leaseMs: 30_000,
  sendTimeoutMs: 5_000,
  maxAttempts: 8,
  backoffBaseMs: 10,
  backoffMaxMs: 50,
};

export const quietLogger = (() => {
  const child = logger.child({});
  child.level = 'silent';
  return child;
})();

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface ProviderRequest {
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  answeredStatus: number;
}

/** Plays the SMS provider: records each request; `statusFor(n)` answers the n-th call (1-based). */
export async function startFakeSmsProvider(statusFor: (call: number) => number = () => 202, delayMs = 0) {
  const requests: ProviderRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = statusFor(requests.length + 1);
      requests.push({
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        answeredStatus: status,
      });
      setTimeout(
        () =>
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify(status < 300 ? { id: `msg-${requests.length}` } : { error: 'provider down' })),
        delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on an ephemeral port (no TLS, no auth) that keeps what it receives. */
export async function startSmtpServer() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// --- a minimal MIME reader, enough for what nodemailer writes --------------------------------

function decodeWords(value: string): string {
  return value.replace(/\s*=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _charset: string, encoding: string, text: string) =>
    encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
  );
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitHeaders(entity: string): { headers: Map<string, string>; body: string } {
  const end = entity.search(/\r?\n\r?\n/);
  const head = entity.slice(0, end).replace(/\r?\n[ \t]+/g, ' ');
  const body = entity.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/** Subject, text and HTML parts of a received message. */
export function parseMail(raw: string): { subject: string; to: string; text: string; html: string; headers: Map<string, string> } {
  const { headers, body } = splitHeaders(raw);
  const parts: { type: string; content: string }[] = [];
  const collect = (entityHeaders: Map<string, string>, entityBody: string) => {
    const type = entityHeaders.get('content-type') ?? 'text/plain';
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (type.toLowerCase().startsWith('multipart/') && boundary) {
      for (const part of entityBody.split(`--${boundary}`).slice(1)) {
        if (part.startsWith('--')) break;
        const inner = splitHeaders(part.replace(/^\r?\n/, ''));
        collect(inner.headers, inner.body);
      }
    } else parts.push({ type: type.toLowerCase(), content: decodeBody(entityHeaders, entityBody) });
  };
  collect(headers, body);
  return {
    subject: decodeWords(headers.get('subject') ?? ''),
    to: headers.get('to') ?? '',
    text: parts.find((p) => p.type.startsWith('text/plain'))?.content ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.content ?? '',
    headers,
  };
}

// --- the application ---------------------------------------------------------------------------

/** A dealership of the n-th demo organization, with its entity. */
export function dealershipOf(server: TestServer, organizationIndex = 0) {
  const organization = server.dataset.organizations[organizationIndex]!;
  const dealership = server.dataset.dealerships.find((d) => d.organization_id === organization.id)!;
  return { organization, dealership, entityId: dealership.entity_id };
}

/** Gives the entity a fresh period with `quota` units of which `used` are taken. */
export async function setQuota(server: TestServer, entityId: string, quota: number, used = 0): Promise<void> {
  await server.db.prisma.entity.update({
    where: { id: entityId },
    data: { remote_quota: quota, remote_quota_used: used, quota_period_start: new Date(), quota_period_months: 1 },
  });
}

export async function postLead(
  server: TestServer,
  apiKey: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> & { detail?: unknown } }> {
  const response = await fetch(`${server.url}/public/reports/create-lead`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as never };
}
