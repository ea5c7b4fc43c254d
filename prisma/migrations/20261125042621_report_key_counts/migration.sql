-- Written by hand, before the generated part: no write to `reports` may commit between the
-- backfill below and the new triggers, or its report would never be counted. SHARE ROW EXCLUSIVE
-- waits for writers in flight and holds new ones (reads go on) until this migration commits; taken
-- first, so that a writer firing the old trigger cannot wait on report_counts while holding reports.
LOCK TABLE "reports" IN SHARE ROW EXCLUSIVE MODE;

-- DropTable
DROP TABLE "report_counts";

-- CreateTable
CREATE TABLE "report_key_counts" (
    "organization_id" UUID NOT NULL,
    "valid" BOOLEAN NOT NULL,
    "type" "ReportType" NOT NULL,
    "dealership_id" UUID NOT NULL,
    "profile_id" UUID NOT NULL,
    "total" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "report_key_counts_pkey" PRIMARY KEY ("organization_id","valid","type","dealership_id","profile_id")
);


-- Written by hand (Prisma does not model triggers). report_key_counts replaces report_counts
-- (organization, valid): the same counters keyed also by type, dealership and profile, the
-- filters users combine most, so that any combination of them is a sum over the organization's
-- counter rows. No dealership / no profile is the nil UUID (key columns are NOT NULL; Prisma
-- cannot declare UNIQUE NULLS NOT DISTINCT); the application counts reports instead when a
-- filter names the nil UUID.
--
-- Every statement that inserts, updates, deletes or truncates reports changes the counters in
-- the same transaction: one upsert of the statement's deltas grouped by key (transition tables),
-- so a bulk insert costs one upsert per key, not one per row.
-- Concurrency: writers of the same key serialize on its counter row until commit (a new key:
-- on its unique index entry). Each upsert visits keys in key order (ORDER BY), so two statements
-- touching the same keys lock them in the same order and cannot deadlock on the counters.
-- Every change is an upsert (never a bare UPDATE that could miss a row): a row a concurrent
-- transaction deleted at 0 is inserted again, READ COMMITTED's ON CONFLICT retrying on it.
-- Rows reaching 0 are deleted, by the transaction that holds their lock: the table keeps only
-- combinations that exist, so a sum reads no rows of moved or deleted dealerships and profiles,
-- and an organization deleted leaves nothing behind.

DROP TRIGGER report_counts_insert ON "reports";
DROP TRIGGER report_counts_delete ON "reports";
DROP TRIGGER report_counts_update ON "reports";
DROP TRIGGER report_counts_truncate ON "reports";
DROP FUNCTION report_counts_after_insert();
DROP FUNCTION report_counts_after_delete();
DROP FUNCTION report_counts_after_update();
DROP FUNCTION report_counts_after_truncate();

INSERT INTO "report_key_counts" ("organization_id", "valid", "type", "dealership_id", "profile_id", "total")
SELECT "organization_id", "valid", "type",
  COALESCE("dealership_id", '00000000-0000-0000-0000-000000000000'),
  COALESCE("profile_id", '00000000-0000-0000-0000-000000000000'),
  count(*)
FROM "reports" GROUP BY 1, 2, 3, 4, 5;

CREATE FUNCTION report_key_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_key_counts AS c (organization_id, valid, type, dealership_id, profile_id, total)
  SELECT organization_id, valid, type,
    COALESCE(dealership_id, '00000000-0000-0000-0000-000000000000'),
    COALESCE(profile_id, '00000000-0000-0000-0000-000000000000'),
    count(*)
  FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (organization_id, valid, type, dealership_id, profile_id) DO UPDATE SET total = c.total + EXCLUDED.total;
  RETURN NULL;
END $$;

-- Rows this statement brought to 0 are deleted by a second statement (the upsert's own changes
-- are invisible to the rest of its statement), found from what the upsert returned: primary-key
-- lookups of those keys only, nothing when none reached 0.
CREATE FUNCTION report_key_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  emptied report_key_counts[];
BEGIN
  WITH changed AS (
    INSERT INTO report_key_counts AS c (organization_id, valid, type, dealership_id, profile_id, total)
    SELECT organization_id, valid, type,
      COALESCE(dealership_id, '00000000-0000-0000-0000-000000000000'),
      COALESCE(profile_id, '00000000-0000-0000-0000-000000000000'),
      -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (organization_id, valid, type, dealership_id, profile_id) DO UPDATE SET total = c.total + EXCLUDED.total
    RETURNING c AS counter
  )
  SELECT array_agg(counter) FILTER (WHERE (counter).total = 0) INTO emptied FROM changed;
  IF emptied IS NOT NULL THEN
    DELETE FROM report_key_counts c USING unnest(emptied) e
    WHERE c.organization_id = e.organization_id AND c.valid = e.valid AND c.type = e.type
      AND c.dealership_id = e.dealership_id AND c.profile_id = e.profile_id AND c.total = 0;
  END IF;
  RETURN NULL;
END $$;

-- Only a change of a key column moves a report between counters: other updates (state, data)
-- cancel out to no delta and write nothing.
CREATE FUNCTION report_key_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  emptied report_key_counts[];
BEGIN
  WITH changed AS (
    INSERT INTO report_key_counts AS c (organization_id, valid, type, dealership_id, profile_id, total)
    SELECT organization_id, valid, type, dealership_id, profile_id, sum(delta) FROM (
      SELECT organization_id, valid, type,
        COALESCE(dealership_id, '00000000-0000-0000-0000-000000000000') AS dealership_id,
        COALESCE(profile_id, '00000000-0000-0000-0000-000000000000') AS profile_id,
        -1 AS delta
      FROM old_rows
      UNION ALL
      SELECT organization_id, valid, type,
        COALESCE(dealership_id, '00000000-0000-0000-0000-000000000000'),
        COALESCE(profile_id, '00000000-0000-0000-0000-000000000000'),
        1
      FROM new_rows
    ) moves
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(delta) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (organization_id, valid, type, dealership_id, profile_id) DO UPDATE SET total = c.total + EXCLUDED.total
    RETURNING c AS counter
  )
  SELECT array_agg(counter) FILTER (WHERE (counter).total = 0) INTO emptied FROM changed;
  IF emptied IS NOT NULL THEN
    DELETE FROM report_key_counts c USING unnest(emptied) e
    WHERE c.organization_id = e.organization_id AND c.valid = e.valid AND c.type = e.type
      AND c.dealership_id = e.dealership_id AND c.profile_id = e.profile_id AND c.total = 0;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION report_key_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_key_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER report_key_counts_insert AFTER INSERT ON reports
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_key_counts_after_insert();
CREATE TRIGGER report_key_counts_delete AFTER DELETE ON reports
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION report_key_counts_after_delete();
CREATE TRIGGER report_key_counts_update AFTER UPDATE ON reports
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_key_counts_after_update();
CREATE TRIGGER report_key_counts_truncate AFTER TRUNCATE ON reports
  FOR EACH STATEMENT EXECUTE FUNCTION report_key_counts_after_truncate();
