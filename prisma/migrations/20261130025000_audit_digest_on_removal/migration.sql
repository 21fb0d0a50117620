-- An entry's details digest is stored once its details are removed, not from the start (33 bytes
-- an entry): while the details are there, the sealer and the verifier work it out from them (the
-- sha256 of the details' text followed by the compressed bytes, as before). When the retention
-- policy removes them, this guard keeps the digest of what was removed, so the chain still
-- verifies. What is hashed does not change: every sealed entry verifies as before. Entries written
-- before this migration keep their stored digest.
CREATE OR REPLACE FUNCTION "audit_log_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW."detailsDigest" := NULL;
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
    -- Details removed: their digest stays, for the chain.
    IF OLD."detailsDigest" IS NULL AND (OLD."details" IS NOT NULL OR OLD."exchanges" IS NOT NULL)
       AND (NEW."details" IS DISTINCT FROM OLD."details" OR NEW."exchanges" IS DISTINCT FROM OLD."exchanges") THEN
      NEW."detailsDigest" := sha256(convert_to(COALESCE(OLD."details"::text, ''), 'UTF8') || COALESCE(OLD."exchanges", ''::bytea));
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
