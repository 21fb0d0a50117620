-- Which rule counted a request's deadlines: 1, receipt + N × 24 hours (requests created before
-- deadlines were counted on calendar days); 2, calendar days in the organization's time zone,
-- ending at the end of the last day there. Rows existing now are rule 1 and new rows rule 2;
-- the worker's scheduled pass counts the open rule-1 requests again (audited) and marks them 2.
ALTER TABLE "DeletionRequest" ADD COLUMN "deadlineRule" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "DeletionRequest" ALTER COLUMN "deadlineRule" SET DEFAULT 2;
CREATE INDEX "DeletionRequest_deadline_rule_idx" ON "DeletionRequest" ("deadlineRule") WHERE "deadlineRule" < 2;
