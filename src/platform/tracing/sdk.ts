/**
 * The OpenTelemetry SDK, loaded by `startTracing` only when the environment names a collector.
 * Configured by the standard `OTEL_*` variables, read by the SDK itself (OTLP over HTTP, JSON;
 * docs/deploy.md, "Observability"). Two defaults differ from the SDK's:
 * - without `OTEL_TRACES_SAMPLER`, requests are sampled at 10 % (`parentbased_traceidratio`, or
 *   the ratio in `OTEL_TRACES_SAMPLER_ARG`), a caller's sampled flag still being followed; the
 *   SDK's default (`parentbased_always_on`) would record every request of a busy service;
 * - without `OTEL_BSP_SCHEDULE_DELAY`, ended spans are sent every 200 ms rather than every 5 s:
 *   spans kept for seconds outlive V8's young generation, and a sampled request then cost the
 *   process several times its spans' own work (docs/performance.md, "Tracing overhead").
 *
 * Instrumentations: ioredis only (the rate limiter's commands, when a request's span records).
 * HTTP, GraphQL and SQL spans are the service's own: the http, express and pg auto-instrumentations
 * wrap every request, middleware and query whether sampled or not, and name spans by middleware
 * rather than by what the request did.
 */
import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';

/** This service's defaults (see above). */
export const DEFAULT_SAMPLE_RATIO = 0.1;
export const DEFAULT_EXPORT_DELAY_MS = 200;

/** `forceFlush` sends what is buffered (tests, shutdown). */
export type TracingHandle = Pick<NodeTracerProvider, 'forceFlush' | 'shutdown'>;

export function startSdk(env: NodeJS.ProcessEnv): TracingHandle {
  // The SDK's own problems (a collector refusing spans) as warnings on stderr, not silence.
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'vehicle-report-api' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const given = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = env.OTEL_TRACES_SAMPLER_ARG !== undefined && given >= 0 && given <= 1 ? given : DEFAULT_SAMPLE_RATIO;
  const provider = new NodeTracerProvider({
    resource,
    ...(env.OTEL_TRACES_SAMPLER ? {} : { sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }) }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter(), env.OTEL_BSP_SCHEDULE_DELAY ? {} : { scheduledDelayMillis: DEFAULT_EXPORT_DELAY_MS }),
    ],
  });
  // W3C Trace Context only: baggage is not read (a caller's baggage could carry anything).
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // The command's name only: the rate limiter's keys name an organization or a client address.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });
  return provider;
}
