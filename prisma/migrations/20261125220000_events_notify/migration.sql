-- Written by hand (Prisma does not model triggers). GraphQL subscriptions (docs/events.md) are
-- the feed read forward, woken up when it may have grown: a statement that writes events
-- notifies the `events` channel once per organization it wrote for, with that organization's id
-- as the only payload. Listeners then read the feed from their own cursor, so nothing of the
-- events themselves travels through NOTIFY (8000-byte limit, no visibility rule). PostgreSQL
-- delivers a NOTIFY at commit (never for a rolled-back transaction) and merges identical ones
-- of a transaction: a transaction writing 10,000 events sends one notification.

CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events', organization_id::text)
  FROM (SELECT DISTINCT organization_id FROM inserted_events) written;
  RETURN NULL;
END $$;

CREATE TRIGGER events_notify AFTER INSERT ON events
  REFERENCING NEW TABLE AS inserted_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
