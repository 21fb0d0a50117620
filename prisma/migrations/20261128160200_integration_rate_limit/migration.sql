-- A destination's own rate: the claim gives each call to the integration a slot
-- 1 / "maxRequestsPerSecond" seconds after the one before, across all worker processes
-- (null: no rate limit of its own).
ALTER TABLE "Integration" ADD COLUMN "maxRequestsPerSecond" DOUBLE PRECISION;

-- No call to the integration starts before this time: the slot after the last one the claim
-- handed out, or what a 429's Retry-After asked for (null: free now).
ALTER TABLE "Integration" ADD COLUMN "nextSlotAt" TIMESTAMP(6);
