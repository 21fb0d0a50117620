-- What a destination proved when it finished (rows changed and the verification for stores, task
-- ids and statuses for vendors), kept on the integration request: the retention policy removes the
-- audit payloads it was first recorded in, and certificates issued later still show it.
ALTER TABLE "IntegrationRequest" ADD COLUMN "evidence" JSONB;

-- Integration requests that finished before this column: their evidence from the last successful
-- step's audit payload, where the retention policy has not removed it yet.
UPDATE "IntegrationRequest" ir
   SET "evidence" = last.evidence
  FROM (
    SELECT DISTINCT ON ("integrationRequestId") "integrationRequestId" AS id, "details"->'evidence' AS evidence
      FROM "AuditLog"
     WHERE "integrationRequestId" IS NOT NULL
       AND "outcome" = 'SUCCESS'
       AND "action" IN ('deletion.requested', 'deletion.status_checked')
       AND jsonb_typeof("details"->'evidence') = 'object'
     ORDER BY "integrationRequestId", id DESC
  ) last
 WHERE ir.id = last.id AND ir.status = 'SUCCESS';
