-- No statement reads an integration's requests in order of creation: the index of
-- (integrationId, createdAt) served only the foreign key, at about 66 bytes per integration
-- request. The integration's id alone serves it, deduplicated to a few bytes per row.
DROP INDEX "IntegrationRequest_integrationId_createdAt_idx";

CREATE INDEX "IntegrationRequest_integrationId_idx" ON "IntegrationRequest"("integrationId");

-- A claim counts the leased requests of every integration with a concurrency limit
-- (pipeline/store/claim.ts): through this index it reads those rows alone, not the
-- integration's whole history.
CREATE INDEX "IntegrationRequest_integrationId_leased_idx" ON "IntegrationRequest"("integrationId") WHERE "lockedBy" IS NOT NULL;
