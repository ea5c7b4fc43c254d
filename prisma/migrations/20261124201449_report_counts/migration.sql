-- CreateTable
CREATE TABLE "report_counts" (
    "organization_id" UUID NOT NULL,
    "valid" BOOLEAN NOT NULL,
    "total" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "report_counts_pkey" PRIMARY KEY ("organization_id","valid")
);


-- Written by hand (Prisma does not model triggers): report_counts follows every statement that
-- inserts, updates, deletes or truncates reports, in the same transaction, with one grouped
-- upsert per statement (transition tables), so bulk inserts cost one update, not one per row.
-- Rows of one organization serialize on its counter row until commit.

INSERT INTO "report_counts" ("organization_id", "valid", "total")
SELECT "organization_id", "valid", count(*) FROM "reports" GROUP BY 1, 2;

CREATE FUNCTION report_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_counts (organization_id, valid, total)
  SELECT organization_id, valid, count(*) FROM new_rows GROUP BY 1, 2
  ON CONFLICT (organization_id, valid) DO UPDATE SET total = report_counts.total + EXCLUDED.total;
  RETURN NULL;
END $$;

CREATE FUNCTION report_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE report_counts c SET total = c.total - d.n
  FROM (SELECT organization_id, valid, count(*) AS n FROM old_rows GROUP BY 1, 2) d
  WHERE c.organization_id = d.organization_id AND c.valid = d.valid;
  RETURN NULL;
END $$;

-- Only a change of organization or validity moves a report between counters: other updates
-- (state, data) leave the sums at zero and write nothing.
CREATE FUNCTION report_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_counts (organization_id, valid, total)
  SELECT organization_id, valid, sum(delta) FROM (
    SELECT organization_id, valid, -1 AS delta FROM old_rows
    UNION ALL
    SELECT organization_id, valid, 1 FROM new_rows
  ) moves
  GROUP BY 1, 2 HAVING sum(delta) <> 0
  ON CONFLICT (organization_id, valid) DO UPDATE SET total = report_counts.total + EXCLUDED.total;
  RETURN NULL;
END $$;

CREATE FUNCTION report_counts_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER report_counts_insert AFTER INSERT ON reports
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_counts_after_insert();
CREATE TRIGGER report_counts_delete AFTER DELETE ON reports
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION report_counts_after_delete();
CREATE TRIGGER report_counts_update AFTER UPDATE ON reports
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION report_counts_after_update();
CREATE TRIGGER report_counts_truncate AFTER TRUNCATE ON reports
  FOR EACH STATEMENT EXECUTE FUNCTION report_counts_after_truncate();
