-- AlterTable
ALTER TABLE "AuditChainHead" ADD COLUMN     "droppedEntries" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "droppedLinks" JSONB,
ADD COLUMN     "startHash" BYTEA,
ADD COLUMN     "startSeq" BIGINT NOT NULL DEFAULT 0;


-- The audit log, partitioned by month of "createdAt": the audit log retention
-- (AUDIT_LOG_RETENTION_MONTHS) drops a month's partition instead of deleting its rows, and
-- records in "AuditChainHead" where each organization's chain continues (see above).
-- PostgreSQL needs the partition key in the primary key: it becomes
-- ("organizationId", "id", "createdAt"); ids stay unique (one sequence).
ALTER TABLE "AuditLog" RENAME TO "AuditLog_unpartitioned";
ALTER TABLE "AuditLog_unpartitioned" RENAME CONSTRAINT "AuditLog_pkey" TO "AuditLog_unpartitioned_pkey";
ALTER TABLE "AuditLog_unpartitioned" DROP CONSTRAINT "AuditLog_organizationId_fkey";
DROP TRIGGER "audit_log_append_only" ON "AuditLog_unpartitioned";
DROP TRIGGER "audit_log_no_truncate" ON "AuditLog_unpartitioned";
DROP INDEX "AuditLog_unsealed_idx";
DROP INDEX "AuditLog_deletionRequestId_idx";

CREATE TABLE "AuditLog" (
    "id" BIGINT NOT NULL DEFAULT nextval('"AuditLog_id_seq"'),
    "organizationId" TEXT NOT NULL,
    "deletionRequestId" TEXT,
    "integrationRequestId" TEXT,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "action" TEXT NOT NULL,
    "outcome" TEXT,
    "summary" TEXT NOT NULL,
    "details" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "hash" BYTEA,
    "chainSeq" BIGINT,
    "detailsDigest" BYTEA,
    "repeatCount" INTEGER NOT NULL DEFAULT 1,
    "lastRepeatedAt" TIMESTAMP(3),
    "exchanges" BYTEA,
    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("organizationId", "id", "createdAt")
) PARTITION BY RANGE ("createdAt");
ALTER SEQUENCE "AuditLog_id_seq" OWNED BY "AuditLog"."id";

-- Entries whose month has no partition (a clock far off, a month not created ahead in time)
-- land here rather than fail; the retention never drops it.
CREATE TABLE "AuditLog_default" PARTITION OF "AuditLog" DEFAULT;
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "AuditLog_default"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_refuse_truncate"();

-- Creates the partition of the month holding `month` ("AuditLog_YYYY_MM") unless it exists;
-- true when it created it. The service creates the coming months ahead (audit-months.ts).
CREATE OR REPLACE FUNCTION "audit_log_add_month"(month timestamp) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  first timestamp := date_trunc('month', month);
  name text := 'AuditLog_' || to_char(date_trunc('month', month), 'YYYY_MM');
BEGIN
  IF to_regclass(format('%I', name)) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF "AuditLog" FOR VALUES FROM (%L) TO (%L)',
                 name, first, first + interval '1 month');
  -- A partition takes the parent's row triggers, not its statement triggers: a TRUNCATE of the
  -- partition itself is refused here.
  EXECUTE format('CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON %I
                    FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_refuse_truncate"()', name);
  RETURN true;
END
$$;

-- Every month from the first entry's to two months ahead.
SELECT "audit_log_add_month"(m)
  FROM generate_series(
         date_trunc('month', LEAST(COALESCE((SELECT min("createdAt") FROM "AuditLog_unpartitioned"), now()::timestamp), now()::timestamp)),
         date_trunc('month', now()::timestamp) + interval '2 months',
         interval '1 month') AS m;

-- Copied before the guard trigger exists, so every column (chain, digests, repeats) is kept as it is.
INSERT INTO "AuditLog" ("id", "organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId",
                        "action", "outcome", "summary", "details", "createdAt", "hash", "chainSeq", "detailsDigest",
                        "repeatCount", "lastRepeatedAt", "exchanges")
SELECT "id", "organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId",
       "action", "outcome", "summary", "details", "createdAt", "hash", "chainSeq", "detailsDigest",
       "repeatCount", "lastRepeatedAt", "exchanges"
  FROM "AuditLog_unpartitioned";
DROP TABLE "AuditLog_unpartitioned";

CREATE INDEX "AuditLog_unsealed_idx" ON "AuditLog"("id") WHERE "chainSeq" IS NULL;
CREATE INDEX "AuditLog_deletionRequestId_idx" ON "AuditLog"("deletionRequestId") WHERE "deletionRequestId" IS NOT NULL;
ALTER TABLE "AuditLog" ADD CONSTRAINT "AuditLog_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "audit_log_append_only" BEFORE INSERT OR UPDATE OR DELETE ON "AuditLog"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_guard"();
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "AuditLog"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_refuse_truncate"();
