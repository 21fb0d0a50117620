-- An Idempotency-Key belongs to one organization and one token owner: a user in two
-- organizations may use the same key in each.
DROP INDEX "DeletionRequest_createdByUserId_idempotencyKey_key";
CREATE UNIQUE INDEX "DeletionRequest_organizationId_createdByUserId_idempotencyKey_key" ON "DeletionRequest"("organizationId", "createdByUserId", "idempotencyKey");

-- The same for the replay store of every other POST: keyed by organization, token owner and
-- key. Stored answers are kept 24 hours for replays only; the ones from before this change
-- cannot name their organization and are dropped.
DELETE FROM "IdempotencyKey";
ALTER TABLE "IdempotencyKey" DROP CONSTRAINT "IdempotencyKey_pkey";
ALTER TABLE "IdempotencyKey" ADD COLUMN "organizationId" TEXT NOT NULL;
ALTER TABLE "IdempotencyKey" ADD CONSTRAINT "IdempotencyKey_pkey" PRIMARY KEY ("organizationId", "userId", "key");
ALTER TABLE "IdempotencyKey" ADD CONSTRAINT "IdempotencyKey_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
