-- Deadline events start with this version: requests already past their deadline count as told
-- (partners are not sent an "overdue" for every old failed request at once).
UPDATE "DeletionRequest" SET "overdueEventAt" = (now() AT TIME ZONE 'UTC')
 WHERE "dueAt" <= (now() AT TIME ZONE 'UTC') AND "overdueEventAt" IS NULL;

-- The overdue pass looks for unfulfilled requests past their deadline without an event yet: a
-- small set, whatever the history.
CREATE INDEX "DeletionRequest_dueAt_overdue_pending_idx" ON "DeletionRequest" ("dueAt")
 WHERE "overdueEventAt" IS NULL AND status NOT IN ('SUCCESS', 'CANCELED');
