-- A claim walked the due index in "nextAttemptAt" order past the due rows of every destination at
-- its limit: with a backlog waiting for a destination with a rate (Mixpanel's 1 request a second,
-- a 20,000-person import), every claim read those thousands of rows again. The running rows of an
-- integration with a "maxConcurrency" or a "maxRequestsPerSecond" are now marked "limited" and
-- kept out of the due index; a claim reads them per integration, only as many as it has free
-- slots, through an index of their own.
ALTER TABLE "IntegrationRequest" ADD COLUMN "limited" BOOLEAN NOT NULL DEFAULT false;

UPDATE "IntegrationRequest" ir
   SET "limited" = true
  FROM "Integration" i
 WHERE i.id = ir."integrationId"
   AND (i."maxConcurrency" IS NOT NULL OR i."maxRequestsPerSecond" IS NOT NULL)
   AND ir."status" IN ('STAGING', 'PENDING', 'PROCESSING');

DROP INDEX "IntegrationRequest_nextAttemptAt_idx";
CREATE INDEX "IntegrationRequest_nextAttemptAt_idx" ON "IntegrationRequest"("nextAttemptAt") WHERE "status" IN ('STAGING', 'PENDING', 'PROCESSING') AND NOT "limited";
CREATE INDEX "IntegrationRequest_limited_due_idx" ON "IntegrationRequest"("integrationId", "nextAttemptAt") WHERE "status" IN ('STAGING', 'PENDING', 'PROCESSING') AND "limited";

-- A row is marked as it is written: when it is inserted, and when it runs again (a retry, a
-- re-verification) after it ended, by what its integration has then.
CREATE FUNCTION integration_request_limited_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."limited" := EXISTS (
    SELECT 1 FROM "Integration" i
     WHERE i.id = NEW."integrationId" AND (i."maxConcurrency" IS NOT NULL OR i."maxRequestsPerSecond" IS NOT NULL));
  RETURN NEW;
END $$;

CREATE TRIGGER "IntegrationRequest_limited_on_insert"
  BEFORE INSERT ON "IntegrationRequest"
  FOR EACH ROW EXECUTE FUNCTION integration_request_limited_mark();

CREATE TRIGGER "IntegrationRequest_limited_on_rerun"
  BEFORE UPDATE OF "status" ON "IntegrationRequest"
  FOR EACH ROW
  WHEN (OLD."status" NOT IN ('STAGING', 'PENDING', 'PROCESSING') AND NEW."status" IN ('STAGING', 'PENDING', 'PROCESSING'))
  EXECUTE FUNCTION integration_request_limited_mark();

-- An integration that gains or loses its limits takes its running rows along: a row marked
-- "limited" is claimed only through its integration's limits. A row inserted while the change was
-- under way may keep the mark of before; the scheduler's sweep corrects it ("unmarkUnlimitedRows").
CREATE FUNCTION integration_request_limited_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "IntegrationRequest"
     SET "limited" = (NEW."maxConcurrency" IS NOT NULL OR NEW."maxRequestsPerSecond" IS NOT NULL)
   WHERE "integrationId" = NEW.id
     AND "status" IN ('STAGING', 'PENDING', 'PROCESSING')
     AND "limited" IS DISTINCT FROM (NEW."maxConcurrency" IS NOT NULL OR NEW."maxRequestsPerSecond" IS NOT NULL);
  RETURN NULL;
END $$;

CREATE TRIGGER "Integration_limits_follow"
  AFTER UPDATE OF "maxConcurrency", "maxRequestsPerSecond" ON "Integration"
  FOR EACH ROW
  WHEN ((OLD."maxConcurrency" IS NOT NULL OR OLD."maxRequestsPerSecond" IS NOT NULL)
        IS DISTINCT FROM (NEW."maxConcurrency" IS NOT NULL OR NEW."maxRequestsPerSecond" IS NOT NULL))
  EXECUTE FUNCTION integration_request_limited_follow();
