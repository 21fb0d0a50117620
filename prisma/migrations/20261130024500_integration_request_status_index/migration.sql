-- Statements look integration requests up by status only for the few still running, failed or in
-- error (STAGING, PENDING, PROCESSING, FAILED, ERROR); the succeeded and canceled ones, nearly all
-- of them, are read through their request. The index keeps only the rows it is read for.
DROP INDEX "IntegrationRequest_status_idx";
CREATE INDEX "IntegrationRequest_status_idx" ON "IntegrationRequest"("status") WHERE "status" IN ('STAGING', 'PENDING', 'PROCESSING', 'FAILED', 'ERROR');
