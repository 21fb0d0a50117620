-- AlterTable
ALTER TABLE "AuditLog" ADD COLUMN     "chainSeq" BIGINT,
ADD COLUMN     "detailsDigest" TEXT;

-- CreateTable
CREATE TABLE "OrganizationKey" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "wrappedKey" TEXT NOT NULL,
    "masterKeyId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rewrappedAt" TIMESTAMP(3),

    CONSTRAINT "OrganizationKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ServiceKey" (
    "id" TEXT NOT NULL,
    "wrappedKey" TEXT NOT NULL,
    "masterKeyId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rewrappedAt" TIMESTAMP(3),

    CONSTRAINT "ServiceKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OrganizationKey_organizationId_createdAt_idx" ON "OrganizationKey"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "OrganizationKey_masterKeyId_idx" ON "OrganizationKey"("masterKeyId");

-- CreateIndex
CREATE INDEX "AuditLog_chainSeq_idx" ON "AuditLog"("chainSeq");

-- CreateIndex
CREATE UNIQUE INDEX "AuditLog_organizationId_chainSeq_key" ON "AuditLog"("organizationId", "chainSeq");

-- AddForeignKey
ALTER TABLE "OrganizationKey" ADD CONSTRAINT "OrganizationKey_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Audit log: existing entries get their payload digest before the guard is installed.
UPDATE "AuditLog" SET "detailsDigest" = encode(sha256(convert_to("details"::text, 'UTF8')), 'hex') WHERE "details" IS NOT NULL;

-- Audit log guard: append-only for everyone without the rights to drop this trigger.
-- INSERT: the payload digest is computed here (whoever writes the row), and chain fields
--         start empty; only sealAuditChain assigns them.
-- UPDATE: chainSeq/prevHash/hash may be set once (NULL -> value), details may be removed
--         (set to NULL, by retention); nothing else may change.
-- DELETE: only together with the organization (the FK cascade runs after the
--         organization row is gone); TRUNCATE is refused.
CREATE OR REPLACE FUNCTION "audit_log_guard"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW."detailsDigest" := CASE WHEN NEW."details" IS NULL THEN NULL ELSE encode(sha256(convert_to(NEW."details"::text, 'UTF8')), 'hex') END;
    NEW."chainSeq" := NULL;
    NEW."prevHash" := NULL;
    NEW."hash" := NULL;
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
    RETURN NEW;
  ELSE
    IF NOT EXISTS (SELECT 1 FROM "Organization" WHERE "id" = OLD."organizationId") THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit log entries cannot be deleted (entry %)', OLD."id" USING ERRCODE = '42501';
  END IF;
END
$$;

CREATE TRIGGER "audit_log_append_only" BEFORE INSERT OR UPDATE OR DELETE ON "AuditLog"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_guard"();

CREATE OR REPLACE FUNCTION "audit_log_refuse_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit log cannot be truncated' USING ERRCODE = '42501';
END
$$;

CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "AuditLog"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_refuse_truncate"();
