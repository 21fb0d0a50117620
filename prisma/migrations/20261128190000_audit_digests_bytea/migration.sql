-- The audit log's three SHA-256 digests are stored as their 32 bytes instead of 64 hex
-- characters. What the chain hashes does not change: an entry's hash is still computed over
-- the hex text of its details digest and of the hash before it (encode(…, 'hex') gives the
-- same text back), so every sealed entry verifies as before.
ALTER TABLE "AuditLog"
  ALTER COLUMN "detailsDigest" TYPE BYTEA USING decode("detailsDigest", 'hex'),
  ALTER COLUMN "prevHash" TYPE BYTEA USING decode("prevHash", 'hex'),
  ALTER COLUMN "hash" TYPE BYTEA USING decode("hash", 'hex');

ALTER TABLE "AuditLog"
  ADD CONSTRAINT "AuditLog_digest_length" CHECK (
    octet_length("detailsDigest") = 32 AND octet_length("prevHash") = 32 AND octet_length("hash") = 32
  );

-- The guard as before, the digest computed as bytes.
CREATE OR REPLACE FUNCTION "audit_log_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW."detailsDigest" := CASE WHEN NEW."details" IS NULL THEN NULL ELSE sha256(convert_to(NEW."details"::text, 'UTF8')) END;
    NEW."chainSeq" := NULL;
    NEW."prevHash" := NULL;
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
    IF NEW."details" IS NOT NULL AND NEW."details" IS DISTINCT FROM OLD."details" THEN
      RAISE EXCEPTION 'audit log details can only be removed, not changed (entry %)', OLD."id" USING ERRCODE = '42501';
    END IF;
    IF (OLD."chainSeq" IS NOT NULL OR OLD."prevHash" IS NOT NULL OR OLD."hash" IS NOT NULL)
       AND (NEW."chainSeq", NEW."prevHash", NEW."hash") IS DISTINCT FROM (OLD."chainSeq", OLD."prevHash", OLD."hash") THEN
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
