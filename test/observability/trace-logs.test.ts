/**
 * The trace context in the real process (`src/app/main.ts` with OTEL_* variables, as an operator
 * runs it): a caller's `traceparent` is continued, its trace id and the request's span id are in
 * the access line and in every other line of the request, and the ioredis instrumentation (which
 * must be registered before ioredis loads: tracing/register.ts) records the rate limiter's
 * commands. Without OTEL_* variables the SDK is never loaded, and the access line still names a
 * caller's trace id.
 */
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { appProcessReady, demoKeysIn, ROOT, startAppProcess, stopAppProcess, type AppProcess } from '../support/app-process';
import { createScratchDatabase, type TestDatabase } from '../support/databases';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { waitFor } from '../notifications/support';

jest.setTimeout(240_000);

const traceparent = (trace: string, parent: string) => `00-${trace}-${parent}-01`;

/** The JSON lines of the process's output that name this trace. */
const linesOf = (app: AppProcess, trace: string) =>
  app
    .output()
    .split('\n')
    .filter((line) => line.includes(trace))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('trace context in the process', () => {
  let scratch: TestDatabase;
  let receiver: OtlpReceiver;
  /** A demo key, printed by the first process, which seeded the database (the second finds it seeded). */
  let key: string | undefined;

  beforeAll(async () => {
    scratch = await createScratchDatabase('postgres');
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await scratch?.drop();
  });

  it("with OTEL_* set: the caller's trace continues, in the access line, the request's other lines and the Redis spans", async () => {
    const app = startAppProcess({
      DATABASE_URL: scratch.url!,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'debug',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'vr-process-test',
      // Nothing of its own is sampled: only what a sampled caller asks for is recorded.
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      // No OTEL_BSP_SCHEDULE_DELAY: the service's own export delay (sdk.ts) is part of what is tested.
    });
    try {
      await appProcessReady(app);
      expect(app.output()).toMatch(/"tracing":true[^\n]*listening on/);
      key = demoKeysIn(app.output())[0];
      const trace = randomBytes(16).toString('hex');
      const caller = randomBytes(8).toString('hex');
      // A client error: logged at debug by the request's own logger (plugins/log-errors.ts), besides the access line.
      const response = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key!, traceparent: traceparent(trace, caller) },
        body: JSON.stringify({ query: '{ reports(limit: 5000) { total } }' }),
      });
      expect(response.status).toBe(200);
      const answeredAt = performance.now();
      const spans = await waitFor(async () => {
        const ofTrace = receiver.spans.filter((s) => s.traceId === trace);
        return ofTrace.some((s) => s.kind === 2) && ofTrace.some((s) => s.attributes['db.system.name'] === 'redis') && ofTrace;
      }, 'the request and Redis spans');
      // Sent within a fraction of the SDK's default delay (5 s): ended spans are not kept for seconds.
      expect(performance.now() - answeredAt).toBeLessThan(2_500);
      const server = spans.find((s) => s.kind === 2)!;
      expect(server).toMatchObject({ parentSpanId: caller, service: 'vr-process-test' });
      const lines = await waitFor(async () => {
        const found = linesOf(app, trace);
        return found.some((l) => l.msg === 'request completed') && found;
      }, 'the access line');
      expect(lines.find((l) => l.msg === 'request completed')).toMatchObject({ trace_id: trace, span_id: server.spanId });
      expect(lines.find((l) => l.msg === 'client error')).toMatchObject({ trace_id: trace });
      // The command's name only: never the key the limiter counts by (an organization, a client address).
      const redis = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
      expect(redis.length).toBeGreaterThan(0);
      for (const span of redis) expect(span.attributes['db.query.text']).toMatch(/^\w+$/);
    } finally {
      await stopAppProcess(app);
    }
  });

  it('without OTEL_* the SDK is not loaded, and the access line names the trace id of a caller', async () => {
    const loaded = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        "require('./src/platform/tracing/register'); require('./src/app/create-app'); " +
          'console.log(JSON.stringify(Object.keys(require.cache).filter((f) => /@opentelemetry[\\\\/](?!api[\\\\/])/.test(f))))',
      ],
      { cwd: ROOT, env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }, encoding: 'utf8' },
    );
    expect(loaded.status).toBe(0);
    expect(JSON.parse(loaded.stdout.trim().split('\n').at(-1)!)).toEqual([]);

    const exported = receiver.spans.length;
    const app = startAppProcess({ DATABASE_URL: scratch.url!, OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    try {
      await appProcessReady(app);
      expect(app.output()).toMatch(/"tracing":false[^\n]*listening on/);
      const trace = randomBytes(16).toString('hex');
      const response = await fetch(`${app.url}/public/reports/?limit=1`, {
        headers: { 'x-api-key': key!, traceparent: traceparent(trace, randomBytes(8).toString('hex')) },
      });
      expect(response.status).toBe(200);
      const [line] = await waitFor(async () => {
        const found = linesOf(app, trace);
        return found.length > 0 && found;
      }, 'the access line');
      expect(line).toMatchObject({ msg: 'request completed', trace_id: trace });
      expect(line).not.toHaveProperty('span_id');
      expect(receiver.spans.length).toBe(exported);
    } finally {
      await stopAppProcess(app);
    }
  });
});
