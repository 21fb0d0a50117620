-- A destination's own concurrency: the claim counts the integration's leased requests and
-- takes no more while it holds "maxConcurrency" of them (null: no limit of its own).
ALTER TABLE "Integration" ADD COLUMN "maxConcurrency" INTEGER;

-- The claim counts leased requests per limited integration on every turn: only leased rows
-- (a handful per destination) sit in this index, not the integration's whole history.
CREATE INDEX "IntegrationRequest_leased_idx" ON "IntegrationRequest"("integrationId") WHERE "lockedBy" IS NOT NULL;
