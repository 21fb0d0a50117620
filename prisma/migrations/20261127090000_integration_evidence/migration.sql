-- What a destination proved when it finished (rows changed and the verification for stores, task
-- ids and statuses for vendors), kept on the integration request: the retention policy removes the
-- audit payloads it was first recorded in, and certificates issued later still show it.
-- (No default: a change of the catalogue only, so the table is locked for a moment. The copy of
-- earlier evidence is the next migration, in a transaction of its own that locks rows, not the table.)
ALTER TABLE "IntegrationRequest" ADD COLUMN "evidence" JSONB;
