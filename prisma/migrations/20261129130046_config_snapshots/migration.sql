-- An integration request's frozen configuration is stored once per distinct configuration of
-- an organization instead of on every integration request (a workspace's thousands of requests
-- to one destination held thousands of copies of the same JSON). The key is the SHA-256 of the
-- organization's id, a space and the configuration's jsonb text: the same expression as
-- `configSnapshotKey` in server/src/pipeline/store/sql.ts, which every writer uses.
CREATE TABLE "ConfigSnapshot" (
    "id" BYTEA NOT NULL,
    "organizationId" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConfigSnapshot_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "ConfigSnapshot_organizationId_idx" ON "ConfigSnapshot"("organizationId");

ALTER TABLE "ConfigSnapshot" ADD CONSTRAINT "ConfigSnapshot_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The snapshots already taken, each distinct one once.
INSERT INTO "ConfigSnapshot" ("id", "organizationId", "config")
SELECT DISTINCT sha256(convert_to(dr."organizationId" || ' ' || ir."configSnapshot"::text, 'UTF8')), dr."organizationId", ir."configSnapshot"
  FROM "IntegrationRequest" ir JOIN "DeletionRequest" dr ON dr."id" = ir."deletionRequestId"
ON CONFLICT ("id") DO NOTHING;

ALTER TABLE "IntegrationRequest" ADD COLUMN "configSnapshotId" BYTEA;

UPDATE "IntegrationRequest" ir
   SET "configSnapshotId" = sha256(convert_to(dr."organizationId" || ' ' || ir."configSnapshot"::text, 'UTF8'))
  FROM "DeletionRequest" dr WHERE dr."id" = ir."deletionRequestId";

ALTER TABLE "IntegrationRequest" ALTER COLUMN "configSnapshotId" SET NOT NULL, DROP COLUMN "configSnapshot";

ALTER TABLE "IntegrationRequest" ADD CONSTRAINT "IntegrationRequest_configSnapshotId_fkey" FOREIGN KEY ("configSnapshotId") REFERENCES "ConfigSnapshot"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
