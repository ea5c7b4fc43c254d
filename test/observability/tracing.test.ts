/**
 * OpenTelemetry traces (issue 46; docs/deploy.md, "Observability"), exported by the real OTLP/HTTP
 * exporter to a receiver inside the test: the span tree of a REST page, of a GraphQL query with an
 * error, of a lead and what it caused (its notifications' deliveries, the webhook of its event,
 * which receives a `traceparent`); an unsampled caller's trace records nothing; no API key, e-mail,
 * phone or name in any attribute.
 */
import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboxDispatcher } from '../../src/features/notifications/dispatcher';
import type { ChannelSenders, OutboxMessage } from '../../src/features/notifications/channels';
import { WebhookDispatcher } from '../../src/features/webhooks/webhook-dispatcher';
import { createWebhookEndpoint } from '../../src/features/webhooks/webhooks.service';
import { startTracing, type TracingHandle } from '../../src/platform/tracing/tracing';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { startTestServer, type TestServer } from '../support/server';
import { dealershipOf, FAST_DISPATCHER, postLead, quietLogger, setQuota, waitFor } from '../notifications/support';

const SERVER = 2;
const CLIENT = 3;

const traceId = () => randomBytes(16).toString('hex');
const spanId = () => randomBytes(8).toString('hex');
const traceparent = (trace: string, parent: string, sampled = true) => `00-${trace}-${parent}-${sampled ? '01' : '00'}`;

const EMAIL = 'jeanne.tracing@example.com';
const PHONE_GIVEN = '06 12 34 56 78';
const PHONE_STORED = '+33612345678';
const NAME = 'Jeanne Tracé';

// One SDK per process (its provider is global), one receiver, for both databases' suites.
let receiver: OtlpReceiver;
let tracing: TracingHandle;
const saved = { ...process.env };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_SERVICE_NAME = 'vr-tracing-test';
  process.env.OTEL_TRACES_SAMPLER = 'parentbased_always_on';
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  tracing = startTracing(process.env)!;
  expect(tracing).toBeDefined();
});

afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
  process.env = saved;
});

describe.each(['postgres', 'pglite'] as const)('OpenTelemetry traces (%s)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    // Opened after tracing started: its Prisma adapter and raw queries make SQL spans.
    server = await startTestServer(kind, { reports: 20 });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  /** The spans of one trace, once the exporter has sent them and those expected have arrived. */
  async function spansOf(trace: string, until: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
    return waitFor(async () => {
      await tracing.forceFlush();
      const spans = receiver.spans.filter((s) => s.traceId === trace);
      return until(spans) && spans;
    }, `the spans of trace ${trace}`);
  }
  const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

  it("a REST page continues the caller's trace: its server span, the rate-limit decision, each SQL statement normalized", async () => {
    const trace = traceId();
    const caller = spanId();
    const response = await fetch(`${server.url}/public/reports/?limit=5&search=${encodeURIComponent(EMAIL)}`, {
      headers: { 'x-api-key': server.keys[0]!, traceparent: traceparent(trace, caller) },
    });
    expect(response.status).toBe(200);
    const spans = await spansOf(trace, (s) => s.some((span) => span.kind === SERVER));
    const root = spans.find((s) => s.kind === SERVER)!;
    expect(root).toMatchObject({
      name: 'GET /public/reports/',
      parentSpanId: caller,
      service: 'vr-tracing-test',
      attributes: expect.objectContaining({
        'http.request.method': 'GET',
        'http.route': '/public/reports/',
        'url.path': '/public/reports/',
        'http.response.status_code': 200,
        'vr.rate_limit.requests.allowed': true,
      }),
    });
    expect(root.attributes['vr.rate_limit.requests.points']).toBeGreaterThan(0);
    const statements = childrenOf(spans, root).filter((s) => s.kind === CLIENT);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.attributes['db.system.name']).toBe('postgresql');
      expect(statement.name).toMatch(/^[A-Z]+( \w+)?$/);
      // Parameters are never in the text: the organization, the search term.
      expect(statement.attributes['db.query.text']).not.toContain(server.dataset.organizations[0]!.id);
      expect(statement.attributes['db.query.text']).not.toContain('jeanne');
    }
    expect(statements.some((s) => /^SELECT/.test(s.name))).toBe(true);
  });

  it('a GraphQL query with an error: parse, validate and execute under the request, the operation named, the error by its code', async () => {
    const trace = traceId();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.keys[0]!, traceparent: traceparent(trace, spanId()) },
      body: JSON.stringify({ query: 'query TooLarge($limit: Int) { reports(limit: $limit) { total } }', variables: { limit: 5000 } }),
    });
    const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const spans = await spansOf(trace, (s) => s.some((span) => span.kind === SERVER));
    const root = spans.find((s) => s.kind === SERVER)!;
    expect(root.name).toBe('POST /graphql query TooLarge');
    expect(root.attributes).toMatchObject({
      'http.route': '/graphql',
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'TooLarge',
      'graphql.error.codes': ['BAD_USER_INPUT'],
    });
    // GraphQL's steps (the key's lookup, when not cached yet, is a SQL child too).
    const steps = childrenOf(spans, root).filter((s) => s.name.startsWith('graphql.'));
    expect(steps.map((s) => s.name).sort()).toEqual(['graphql.execute', 'graphql.parse', 'graphql.validate']);
    const execution = steps.find((s) => s.name === 'graphql.execute')!;
    expect(execution.attributes).toMatchObject({ 'graphql.operation.name': 'TooLarge', 'graphql.error.codes': ['BAD_USER_INPUT'] });
    expect(execution.status.code).toBe(2);
    // Neither the document nor its variables.
    expect(JSON.stringify(spans)).not.toContain('reports(limit');
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('5000');
  });

  it('GraphQL compilation, when it happens, is a span of the request that paid for it', async () => {
    const trace = traceId();
    const query = 'query Twice { dealerships(limit: 2) { items { id name } } }';
    for (const header of [traceparent(traceId(), spanId()), traceparent(trace, spanId())]) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': server.keys[1]!, traceparent: header },
        body: JSON.stringify({ query }),
      });
      expect(response.status).toBe(200);
    }
    // The second sighting of a document compiles it (compiled-execution.ts).
    const spans = await spansOf(trace, (s) => s.some((span) => span.name === 'graphql.compile'));
    const root = spans.find((s) => s.kind === SERVER)!;
    expect(spans.find((s) => s.name === 'graphql.compile')!.parentSpanId).toBe(root.spanId);
  });

  it("a lead's notifications and its event's webhook continue the lead's trace; the webhook receives a traceparent", async () => {
    const lead = dealershipOf(server, 0);
    await setQuota(server, lead.entityId, 1_000);
    // Deliveries start at the feed's horizon, which other transactions of the cluster can hold
    // back: an earlier event of the organization may arrive too, so each hook is known by its subject.
    const hooks: { headers: IncomingHttpHeaders; subject: string }[] = [];
    const hookReceiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        hooks.push({ headers: req.headers, subject: JSON.parse(Buffer.concat(chunks).toString()).data.subject });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hookReceiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(hookReceiver.address() as AddressInfo).port}/hook`;
    try {
      await createWebhookEndpoint(
        server.db.prisma,
        lead.organization.id,
        { url: hookUrl, types: 'report.created' },
        { allowPrivate: true },
      );
      const trace = traceId();
      const created = await postLead(
        server,
        server.keys[0],
        { dealership: lead.dealership.id, name: NAME, email: EMAIL, phone: PHONE_GIVEN, sendEmail: true, sendPhone: true },
        { traceparent: traceparent(trace, spanId()) },
      );
      expect(created.status).toBe(201);
      const token = created.body.token as string;
      const request = (await spansOf(trace, (s) => s.some((span) => span.kind === SERVER))).find((s) => s.kind === SERVER)!;
      // The rows name the request's span: their deliveries are its children.
      const outbox = await server.db.prisma.notificationOutbox.findMany({ where: { report_token: token } });
      expect(outbox.map((row) => row.trace_context)).toEqual([traceparent(trace, request.spanId), traceparent(trace, request.spanId)]);

      const sent: OutboxMessage[] = [];
      const senders: ChannelSenders = {
        email: { target: 'test', send: async (message) => void sent.push(message) },
        sms: { target: 'test', send: async (message) => void sent.push(message) },
      };
      const dispatcher = new OutboxDispatcher(server.db.prisma, senders, FAST_DISPATCHER, quietLogger);
      await waitFor(async () => (await dispatcher.runOnce(), sent.length >= 2), 'both notifications sent');
      const webhooks = new WebhookDispatcher(
        server.db.prisma,
        { ...FAST_DISPATCHER, eventsPerClaim: 20, timeoutMs: 5_000, allowPrivateAddresses: true },
        quietLogger,
      );
      const hookOfLead = () => hooks.find((hook) => hook.subject === token);
      await waitFor(async () => (await webhooks.runOnce(), hookOfLead() !== undefined), 'the webhook of report.created');

      const spans = await spansOf(
        trace,
        (s) =>
          s.filter((span) => span.name.startsWith('notification.deliver')).length === 2 &&
          s.some((span) => span.name === 'webhook.deliver'),
      );
      const deliveries = spans.filter((s) => s.name.startsWith('notification.deliver'));
      expect(deliveries.map((s) => s.name).sort()).toEqual(['notification.deliver email', 'notification.deliver sms']);
      for (const delivery of deliveries) {
        expect(delivery.parentSpanId).toBe(request.spanId);
        expect(delivery.attributes['vr.notification.outcome']).toBe('sent');
        // Its own statements (the attempt recorded) are its children.
        expect(childrenOf(spans, delivery).some((s) => s.kind === CLIENT)).toBe(true);
      }
      // The events the lead wrote name its request; the notifications' outcomes name their deliveries.
      const events = await server.db.prisma.event.findMany({ where: { subject: token }, select: { type: true, trace_context: true } });
      expect(events.find((e) => e.type === 'report.created')!.trace_context).toBe(traceparent(trace, request.spanId));
      const outcomes = events.filter((e) => e.type === 'notification.delivered').map((e) => e.trace_context);
      expect(outcomes.sort()).toEqual(deliveries.map((d) => traceparent(trace, d.spanId)).sort());
      const webhook = spans.find((s) => s.name === 'webhook.deliver')!;
      expect(webhook.parentSpanId).toBe(request.spanId);
      expect(webhook.attributes).toMatchObject({ 'vr.webhook.event_type': 'report.created', 'http.response.status_code': 204 });
      expect(hookOfLead()!.headers.traceparent).toBe(traceparent(trace, webhook.spanId));
    } finally {
      await new Promise((resolve) => hookReceiver.close(resolve));
    }
  });

  it("an unsampled caller's request records nothing", async () => {
    const trace = traceId();
    const response = await fetch(`${server.url}/public/reports/?limit=3`, {
      headers: { 'x-api-key': server.keys[0]!, traceparent: traceparent(trace, spanId(), false) },
    });
    expect(response.status).toBe(200);
    // Something sampled after it, to know the exporter has sent what it had.
    const marker = traceId();
    await fetch(`${server.url}/public/reports/?limit=1`, {
      headers: { 'x-api-key': server.keys[0]!, traceparent: traceparent(marker, spanId()) },
    });
    await spansOf(marker, (s) => s.some((span) => span.kind === SERVER));
    expect(receiver.spans.filter((s) => s.traceId === trace)).toEqual([]);
  });

  it('probes and scrapes make no span', async () => {
    const trace = traceId();
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect((await fetch(`${server.url}${path}`, { headers: { traceparent: traceparent(trace, spanId()) } })).status).toBe(200);
    const marker = traceId();
    await fetch(`${server.url}/public/reports/?limit=1`, {
      headers: { 'x-api-key': server.keys[0]!, traceparent: traceparent(marker, spanId()) },
    });
    await spansOf(marker, (s) => s.some((span) => span.kind === SERVER));
    expect(receiver.spans.filter((s) => s.traceId === trace)).toEqual([]);
  });

  it('no API key, e-mail address, phone number or name in any attribute of any span', async () => {
    await tracing.forceFlush();
    expect(receiver.spans.length).toBeGreaterThan(10);
    const everything = JSON.stringify(receiver.spans);
    for (const secret of [...server.keys, EMAIL, PHONE_STORED, PHONE_GIVEN, NAME, 'Jeanne']) expect(everything).not.toContain(secret);
    // Nor any e-mail address at all, nor a phone number written out.
    expect(everything).not.toMatch(/[\w.+-]+@[\w-]+\.[\w.]+/);
    expect(everything).not.toMatch(/\+33\d{9}/);
  });
});
