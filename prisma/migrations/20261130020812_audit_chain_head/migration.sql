-- The audit chain's head is recorded per organization instead of found through an index of
-- (organizationId, chainSeq), about 104 bytes per integration request: the sealer continues from
-- the recorded head, a certificate names it, and the verifier walks the log by its primary key
-- (organizationId, id), putting the few entries sealed out of id order back in chain order.
CREATE TABLE "AuditChainHead" (
    "organizationId" TEXT NOT NULL,
    "chainSeq" BIGINT NOT NULL,
    "entryId" BIGINT NOT NULL,
    "hash" BYTEA NOT NULL,

    CONSTRAINT "AuditChainHead_pkey" PRIMARY KEY ("organizationId")
);

ALTER TABLE "AuditChainHead" ADD CONSTRAINT "AuditChainHead_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each organization's head as sealed so far (read through the index about to go).
INSERT INTO "AuditChainHead" ("organizationId", "chainSeq", "entryId", "hash")
SELECT DISTINCT ON ("organizationId") "organizationId", "chainSeq", "id", "hash"
  FROM "AuditLog"
 WHERE "chainSeq" IS NOT NULL AND "hash" IS NOT NULL
 ORDER BY "organizationId", "chainSeq" DESC;

DROP INDEX "AuditLog_organizationId_chainSeq_key";

-- Finished integration requests have no next attempt: the index holds the rows that have one, the
-- ones every statement reading it asks for (the claim's "nextAttemptAt" <= now, the queue depth's
-- IS NOT NULL), instead of one entry per request ever made.
DROP INDEX "IntegrationRequest_nextAttemptAt_idx";
CREATE INDEX "IntegrationRequest_nextAttemptAt_idx" ON "IntegrationRequest"("nextAttemptAt") WHERE "nextAttemptAt" IS NOT NULL;
