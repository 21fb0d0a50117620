-- CCPA: receipt of a request to delete is confirmed to the subject within 10 business days.
ALTER TABLE "DeletionRequest" ADD COLUMN "receiptConfirmBy" TIMESTAMP(3);
ALTER TABLE "DeletionRequest" ADD COLUMN "receiptConfirmedAt" TIMESTAMP(3);

-- CCPA requests stored before whose 10 business days have not run out: the date new ones get
-- (shared/src/days-left.ts `addBusinessDays`): the 10th weekday on California's calendar after
-- the day of receipt there, at the time of receipt (an hour earlier when that would fall on the
-- next day there, across the spring change of clocks). Older ones stay without: whether their
-- receipt was confirmed, outside this service, is not known here, and they are not shown as late.
WITH received AS (
  SELECT id, COALESCE("receivedAt", "createdAt") AS at,
         (COALESCE("receivedAt", "createdAt") AT TIME ZONE 'UTC' AT TIME ZONE 'America/Los_Angeles')::date AS day
    FROM "DeletionRequest"
   WHERE regulation = 'CCPA'
), due AS (
  SELECT received.id, received.at + (tenth.day - received.day) * interval '1 day' AS at, tenth.day
    FROM received
    CROSS JOIN LATERAL (
      SELECT d::date AS day FROM generate_series(received.day + 1, received.day + 20, interval '1 day') AS d
       WHERE extract(isodow FROM d) < 6
       ORDER BY d OFFSET 9 LIMIT 1) AS tenth
), moved AS (
  SELECT id, CASE WHEN (at AT TIME ZONE 'UTC' AT TIME ZONE 'America/Los_Angeles')::date > day
                  THEN at - interval '1 hour' ELSE at END AS at
    FROM due
)
UPDATE "DeletionRequest" r
   SET "receiptConfirmBy" = moved.at
  FROM moved
 WHERE r.id = moved.id AND moved.at > (now() AT TIME ZONE 'UTC');
