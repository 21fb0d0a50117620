-- An entry's hash covers the hash of the entry before it in its organization's chain; that hash
-- is the previous entry's own "hash" column, so it is no longer stored a second time on each
-- entry (33 bytes an entry). What is hashed does not change: every sealed entry verifies as before,
-- and the verifier (server/src/services/audit/audit-chain.ts) takes the previous hash from the
-- entry before. An entry altered and hashed again breaks the chain at the entry after it.
ALTER TABLE "AuditLog" DROP COLUMN "prevHash";

-- The guard as before, without the column.
CREATE OR REPLACE FUNCTION "audit_log_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW."detailsDigest" := CASE WHEN NEW."details" IS NULL AND NEW."exchanges" IS NULL THEN NULL
      ELSE sha256(convert_to(COALESCE(NEW."details"::text, ''), 'UTF8') || COALESCE(NEW."exchanges", ''::bytea)) END;
    NEW."chainSeq" := NULL;
    NEW."hash" := NULL;
    NEW."repeatCount" := 1;
    NEW."lastRepeatedAt" := NULL;
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    IF (NEW."id", NEW."organizationId", NEW."deletionRequestId", NEW."integrationRequestId", NEW."actorType", NEW."actorId",
        NEW."action", NEW."outcome", NEW."summary", NEW."createdAt", NEW."detailsDigest")
       IS DISTINCT FROM
       (OLD."id", OLD."organizationId", OLD."deletionRequestId", OLD."integrationRequestId", OLD."actorType", OLD."actorId",
        OLD."action", OLD."outcome", OLD."summary", OLD."createdAt", OLD."detailsDigest") THEN
      RAISE EXCEPTION 'audit log entries are append-only (entry %)', OLD."id" USING ERRCODE = '42501';
    END IF;
    IF (NEW."details" IS NOT NULL AND NEW."details" IS DISTINCT FROM OLD."details")
       OR (NEW."exchanges" IS NOT NULL AND NEW."exchanges" IS DISTINCT FROM OLD."exchanges") THEN
      RAISE EXCEPTION 'audit log details can only be removed, not changed (entry %)', OLD."id" USING ERRCODE = '42501';
    END IF;
    IF (OLD."chainSeq" IS NOT NULL OR OLD."hash" IS NOT NULL)
       AND (NEW."chainSeq", NEW."hash") IS DISTINCT FROM (OLD."chainSeq", OLD."hash") THEN
      RAISE EXCEPTION 'audit log entry % is already sealed', OLD."id" USING ERRCODE = '42501';
    END IF;
    -- A folded entry's count and last time only move forward.
    IF NEW."repeatCount" < OLD."repeatCount"
       OR (OLD."lastRepeatedAt" IS NOT NULL AND (NEW."lastRepeatedAt" IS NULL OR NEW."lastRepeatedAt" < OLD."lastRepeatedAt")) THEN
      RAISE EXCEPTION 'audit log entry % can only count more repeats', OLD."id" USING ERRCODE = '42501';
    END IF;
    RETURN NEW;
  ELSE
    IF NOT EXISTS (SELECT 1 FROM "Organization" WHERE "id" = OLD."organizationId") THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit log entries cannot be deleted (entry %)', OLD."id" USING ERRCODE = '42501';
  END IF;
END
$$;
