-- deletion_request.receipt_overdue: a receipt still to confirm to the subject whose date passed.
ALTER TABLE "DeletionRequest" ADD COLUMN "receiptOverdueEventAt" TIMESTAMP(3);

-- The event starts with this version: receipts already past their date count as told (partners
-- are not sent one for every old request at once).
UPDATE "DeletionRequest" SET "receiptOverdueEventAt" = (now() AT TIME ZONE 'UTC')
 WHERE "receiptConfirmBy" <= (now() AT TIME ZONE 'UTC') AND "receiptConfirmedAt" IS NULL;

-- The pass looks for receipts past their date, still to confirm, without an event yet: a small
-- set, whatever the history.
CREATE INDEX "DeletionRequest_receipt_overdue_pending_idx" ON "DeletionRequest" ("receiptConfirmBy")
 WHERE "receiptOverdueEventAt" IS NULL AND "receiptConfirmedAt" IS NULL AND "receiptConfirmBy" IS NOT NULL
   AND status <> 'CANCELED';
