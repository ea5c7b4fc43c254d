-- CreateTable
CREATE TABLE "events" (
    "position" BIGSERIAL NOT NULL,
    "organization_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "subject" UUID NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),

    CONSTRAINT "events_pkey" PRIMARY KEY ("position")
);

-- CreateIndex
CREATE INDEX "events_organization_id_xid_position_idx" ON "events"("organization_id", "xid", "position");

-- CreateIndex
CREATE INDEX "events_occurred_at_idx" ON "events"("occurred_at");


-- Written by hand (Prisma does not model triggers). Every change of a report and every final
-- outcome of a notification becomes events in the transaction that makes it, whoever writes
-- (this service, the inspection application, a psql session): docs/events.md lists the types and
-- their payloads. Row-level triggers: a statement changing N reports writes events for each of
-- them, once per report and type (a statement changes a row at most once).
--
-- `xid` (the writer's transaction id, default above) is what makes the feed safe: positions are
-- taken at insert time but become visible at commit, in another order. Readers order by
-- (xid, position) and read only rows whose xid is below pg_snapshot_xmin(pg_current_snapshot()):
-- every such transaction has ended, so all its rows are visible, and whatever commits later has
-- an xid at or above that xmin, i.e. after any cursor handed out.

CREATE FUNCTION events_from_reports() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (organization_id, type, subject, payload)
    VALUES (NEW.organization_id, 'report.created', NEW.token,
      jsonb_build_object('report_type', NEW.type, 'valid', NEW.valid));
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    INSERT INTO events (organization_id, type, subject, payload)
    VALUES (OLD.organization_id, 'report.deleted', OLD.token, '{}');
    RETURN NULL;
  END IF;
  -- The columns a writer sets (the generated ones follow `data`; updated_at alone is no change).
  changed := array_remove(ARRAY[
    CASE WHEN NEW.token IS DISTINCT FROM OLD.token THEN 'token' END,
    CASE WHEN NEW.organization_id IS DISTINCT FROM OLD.organization_id THEN 'organization_id' END,
    CASE WHEN NEW.entity_id IS DISTINCT FROM OLD.entity_id THEN 'entity_id' END,
    CASE WHEN NEW.dealership_id IS DISTINCT FROM OLD.dealership_id THEN 'dealership_id' END,
    CASE WHEN NEW.profile_id IS DISTINCT FROM OLD.profile_id THEN 'profile_id' END,
    CASE WHEN NEW.contact_id IS DISTINCT FROM OLD.contact_id THEN 'contact_id' END,
    CASE WHEN NEW.counter_id IS DISTINCT FROM OLD.counter_id THEN 'counter_id' END,
    CASE WHEN NEW.type IS DISTINCT FROM OLD.type THEN 'type' END,
    CASE WHEN NEW.valid IS DISTINCT FROM OLD.valid THEN 'valid' END,
    CASE WHEN NEW.created_at IS DISTINCT FROM OLD.created_at THEN 'created_at' END,
    CASE WHEN NEW.data IS DISTINCT FROM OLD.data THEN 'data' END,
    CASE WHEN NEW.state IS DISTINCT FROM OLD.state THEN 'state' END,
    CASE WHEN NEW.real_costs IS DISTINCT FROM OLD.real_costs THEN 'real_costs' END
  ], NULL);
  IF cardinality(changed) = 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO events (organization_id, type, subject, payload)
  VALUES (NEW.organization_id, 'report.updated', NEW.token, jsonb_build_object('changed', to_jsonb(changed)));
  IF 'valid' = ANY(changed) THEN
    INSERT INTO events (organization_id, type, subject, payload)
    VALUES (NEW.organization_id, 'report.validity_changed', NEW.token, jsonb_build_object('valid', NEW.valid));
  END IF;
  IF 'state' = ANY(changed) THEN
    -- The 14 steps of spec 3 (src/features/reports/report-state-keys.ts), in that order: a step
    -- that appears or whose entry changes.
    INSERT INTO events (organization_id, type, subject, payload)
    SELECT NEW.organization_id, 'report.' || step.key, NEW.token,
      jsonb_build_object('step', step.key, 'status', NEW.state -> step.key -> 'status', 'date', NEW.state -> step.key -> 'date')
    FROM unnest(ARRAY['folder_created', 'folder_estimated', 'folder_accepted', 'folder_rejected', 'folder_instock',
      'folder_sold', 'folder_closed', 'folder_completed', 'folder_archived', 'folder_relisted', 'folder_remarketed',
      'folder_rehabilitated', 'counter_inspected', 'customer_notified']) WITH ORDINALITY AS step(key, n)
    WHERE NEW.state -> step.key IS DISTINCT FROM OLD.state -> step.key
    ORDER BY step.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER events_reports_insert AFTER INSERT ON reports FOR EACH ROW EXECUTE FUNCTION events_from_reports();
CREATE TRIGGER events_reports_update AFTER UPDATE ON reports FOR EACH ROW EXECUTE FUNCTION events_from_reports();
CREATE TRIGGER events_reports_delete AFTER DELETE ON reports FOR EACH ROW EXECUTE FUNCTION events_from_reports();

-- A notification's final outcome (sent, or failed after its last attempt); retries are not events.
CREATE FUNCTION events_from_notifications() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (organization_id, type, subject, payload)
  VALUES (NEW.organization_id,
    CASE NEW.status WHEN 'sent' THEN 'notification.delivered' ELSE 'notification.failed' END,
    NEW.report_token,
    jsonb_strip_nulls(jsonb_build_object('notification_id', NEW.id, 'channel', NEW.channel, 'attempts', NEW.attempts,
      'error', left(NEW.last_error, 200))));
  RETURN NULL;
END $$;

CREATE TRIGGER events_notifications_outcome AFTER UPDATE ON notification_outbox FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('sent', 'failed'))
  EXECUTE FUNCTION events_from_notifications();
