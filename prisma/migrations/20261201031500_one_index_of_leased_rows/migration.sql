-- "IntegrationRequest_leased_idx" (20261128060000) and "IntegrationRequest_integrationId_leased_idx"
-- (20261129194604) are the same index: every claim wrote each leased row into both. The one the
-- schema names stays.
DROP INDEX IF EXISTS "IntegrationRequest_leased_idx";
