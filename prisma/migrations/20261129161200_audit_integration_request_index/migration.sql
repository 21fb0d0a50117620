-- An integration request's entries (the latest one a status poll folds into, the last attempt a
-- notice reads, the evidence a certificate falls back on) are looked up with their request's id
-- too, through "AuditLog_deletionRequestId_idx": a request has a few entries per integration,
-- so its index entry leads to them all. The index of the integration request's key alone took
-- an index entry per integration request and served nothing else.
DROP INDEX IF EXISTS "AuditLog_integrationRequestId_idx";
