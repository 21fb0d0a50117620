-- An Idempotency-Key belongs to one organization and one token owner: a user in two
-- organizations may use the same key in each.
DROP INDEX "DeletionRequest_createdByUserId_idempotencyKey_key";
CREATE UNIQUE INDEX "DeletionRequest_organizationId_createdByUserId_idempotencyKey_key" ON "DeletionRequest"("organizationId", "createdByUserId", "idempotencyKey");
