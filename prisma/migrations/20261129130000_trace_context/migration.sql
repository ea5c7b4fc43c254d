-- The W3C trace context (`traceparent`) of the request whose transaction wrote the row, so that a
-- notification's delivery and an event's webhook deliveries continue that request's trace
-- (docs/deploy.md, "Observability"). A default rather than a column every writer sets: events are
-- written by triggers, and a transaction names its trace once with
-- `set_config('vr.trace_context', <traceparent>, true)` (only when tracing is on). Outside such a
-- transaction the setting is unset or '' and the column NULL.

-- AlterTable
ALTER TABLE "notification_outbox" ADD COLUMN     "trace_context" TEXT DEFAULT NULLIF(current_setting('vr.trace_context'::text, true), ''::text);

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "trace_context" TEXT DEFAULT NULLIF(current_setting('vr.trace_context'::text, true), ''::text);

