-- Written by hand (Prisma does not model triggers): every change that can end a key's validity
-- (revocation, a new digest or organization, deletion, truncation) is announced on the
-- `api_key_changes` channel, so that the service's in-memory key cache forgets it at once, whatever
-- made the change. The payload is the digest of the key, or '*' for all of them. last_used_at
-- bookkeeping announces nothing.

CREATE FUNCTION api_key_changes_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', OLD.digest);
  RETURN NULL;
END $$;

CREATE FUNCTION api_key_changes_notify_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('api_key_changes', '*');
  RETURN NULL;
END $$;

CREATE TRIGGER api_key_changes_update AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.digest IS DISTINCT FROM NEW.digest
        OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION api_key_changes_notify();
CREATE TRIGGER api_key_changes_delete AFTER DELETE ON api_keys FOR EACH ROW EXECUTE FUNCTION api_key_changes_notify();
CREATE TRIGGER api_key_changes_truncate AFTER TRUNCATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION api_key_changes_notify_all();
