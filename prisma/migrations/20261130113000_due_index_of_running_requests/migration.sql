-- The due index holds the integration requests still running (STAGING, PENDING, PROCESSING), the
-- rows a claim and the queue depth ask for, instead of the rows with a next attempt (nearly the
-- same rows: finished ones have none). Its predicate now says what its rows are, so a claim can
-- walk it in "nextAttemptAt" order and stop at its limit: not knowing that every row in it is
-- running, the planner read all the due rows through the status index and sorted them.
DROP INDEX "IntegrationRequest_nextAttemptAt_idx";
CREATE INDEX "IntegrationRequest_nextAttemptAt_idx" ON "IntegrationRequest"("nextAttemptAt") WHERE "status" IN ('STAGING', 'PENDING', 'PROCESSING');
