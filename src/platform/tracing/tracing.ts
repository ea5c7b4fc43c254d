/**
 * OpenTelemetry tracing (docs/deploy.md, "Observability"): what the rest of the code calls. Only
 * `@opentelemetry/api` is loaded here; the SDK is loaded by `startTracing`, and only when the
 * `OTEL_*` variables name a collector. Without them every helper below returns at its first test of
 * `tracing.on`. An unsampled request still gets a (non-recording) span, so that its trace id
 * reaches the logs and its children follow the caller's decision; but nothing is built for it:
 * every helper checks `isRecording()` before making a child span or an attribute.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { TracingHandle } from './sdk';

/** Whether the SDK was started in this process (read on hot paths: a plain property). */
export const tracing = { on: false };

/** Whether the environment asks for traces: an OTLP endpoint, not disabled by `OTEL_SDK_DISABLED` or `OTEL_TRACES_EXPORTER`. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

let started: TracingHandle | undefined;

export type { TracingHandle };

/** Starts the SDK when the environment asks for it, once per process (its provider and propagator are global). */
export function startTracing(env: NodeJS.ProcessEnv = process.env): TracingHandle | undefined {
  if (started || !tracingRequested(env)) return started;
  // Loaded here only: a process without OTEL_* never reads the SDK's modules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as typeof import('./sdk');
  started = sdk.startSdk(env);
  tracing.on = true;
  return started;
}

let cachedTracer: Tracer | undefined;

/** The service's tracer (looked up once: a request's spans are made on a hot path). */
export function tracer(): Tracer {
  return (cachedTracer ??= trace.getTracer('vehicle-report-api'));
}

/** The active span when it records (sampled and tracing on), else undefined. */
export function recordingSpan(): Span | undefined {
  if (!tracing.on) return undefined;
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span : undefined;
}

/** Runs `work` (synchronous, or a promise) in a child span of the active one when that records; else as it is. */
export function inChildSpan<T>(name: string, attributes: Attributes, work: () => T): T {
  if (!recordingSpan()) return work();
  return inSpan(tracer().startSpan(name, { attributes }, context.active()), context.active(), work);
}

/** Runs `work` with `span` active under `parent`; ends the span when the work (or its promise) does. */
function inSpan<T>(span: Span, parent: Context, work: () => T): T {
  const fail = (error: unknown) => {
    failed(span, error);
    span.end();
    throw error;
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    return fail(error);
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then((value: unknown) => {
    span.end();
    return value;
  }, fail) as T;
}

/** Marks a span failed by the error's class only: messages may quote input (an address, a value). */
export function failed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.constructor.name : typeof error;
  span.setAttribute('error.type', type);
  span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The `traceparent` of the active span (sampled or not), for a row or a request made on its behalf. */
export function activeTraceparent(): string | undefined {
  if (!tracing.on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent && TRACEPARENT.test(carrier.traceparent) ? carrier.traceparent : undefined;
}

/** The context a stored or received `traceparent` names (the root context when absent or malformed). */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (!traceparent || !TRACEPARENT.test(traceparent)) return context.active();
  return propagation.extract(context.active(), { traceparent });
}

/** The trace id a `traceparent` header names, when well formed (logged even with tracing off). */
export function traceIdOfHeader(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  // All-zero ids are invalid (W3C Trace Context, 3.2.2.3).
  return match && !/^0+$/.test(match[1]!) ? match[1] : undefined;
}

/** The ids of the active span, for log lines (pino's mixin): a new object each time, pino merges the line into it. */
export function activeLogFields(): { trace_id?: string; span_id?: string } {
  if (!tracing.on) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Sends the spans still buffered and stops the SDK (process shutdown); nothing with tracing off. */
export async function shutdownTracing(): Promise<void> {
  await started?.shutdown().catch(() => undefined);
}

/**
 * Runs background work (a notification's delivery, a webhook request) in a child span of the
 * request that queued it (its stored `traceparent`), so the trace shows the request and what it
 * caused, sampled as that request was; without one, in a new trace.
 */
export async function inContinuedSpan<T>(
  name: string,
  traceparent: string | null | undefined,
  attributes: Attributes,
  work: () => Promise<T>,
  outcome?: (result: T) => Attributes & { failed?: boolean },
): Promise<T> {
  if (!tracing.on) return work();
  const parent = traceparent ? contextOfTraceparent(traceparent) : ROOT_CONTEXT;
  const span = tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent);
  return inSpan(span, parent, async () => {
    const result = await work();
    if (outcome && span.isRecording()) {
      const { failed: didFail, ...rest } = outcome(result);
      span.setAttributes(rest);
      if (didFail) span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
    }
    return result;
  });
}
