-- Smaller indexes on the audit log, each still serving the queries it served.
--
-- Entries awaiting sealing: the sealer reads them in id order, the verifier counts them. Only
-- those few (sealed within seconds) sit in this index, not the whole log.
DROP INDEX "AuditLog_chainSeq_idx";
CREATE INDEX "AuditLog_unsealed_idx" ON "AuditLog"("id") WHERE "chainSeq" IS NULL;

-- A request's entries (its trail, its certificate's last sealed entry, retention) and an
-- integration request's (the latest entry a status poll folds into, the last attempt a
-- notice reads) are looked up by that key alone, then ordered: a request has tens of entries
-- at most. Keyed without the id, the entries of one request share one index entry
-- (B-tree deduplication) instead of one each; entries of neither are left out.
DROP INDEX "AuditLog_deletionRequestId_id_idx";
CREATE INDEX "AuditLog_deletionRequestId_idx" ON "AuditLog"("deletionRequestId") WHERE "deletionRequestId" IS NOT NULL;
DROP INDEX "AuditLog_integrationRequestId_id_idx";
CREATE INDEX "AuditLog_integrationRequestId_idx" ON "AuditLog"("integrationRequestId") WHERE "integrationRequestId" IS NOT NULL;
