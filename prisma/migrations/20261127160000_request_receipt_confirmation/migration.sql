-- CCPA: receipt of a request to delete is confirmed to the subject within 10 business days.
ALTER TABLE "DeletionRequest" ADD COLUMN "receiptConfirmBy" TIMESTAMP(3);
ALTER TABLE "DeletionRequest" ADD COLUMN "receiptConfirmedAt" TIMESTAMP(3);

-- CCPA requests stored before: the 10th weekday (Monday to Friday, UTC) after receipt, at the
-- same time of day, as shared/src/deadlines.ts `addBusinessDays` counts.
UPDATE "DeletionRequest" r
   SET "receiptConfirmBy" = (
     SELECT d FROM generate_series(COALESCE(r."receivedAt", r."createdAt") + interval '1 day',
                                   COALESCE(r."receivedAt", r."createdAt") + interval '20 days', interval '1 day') AS d
      WHERE extract(isodow FROM d) < 6
      ORDER BY d
      OFFSET 9 LIMIT 1)
 WHERE r.regulation = 'CCPA';
