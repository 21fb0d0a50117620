-- The IANA time zone whose calendar days an organization's deadlines count. Existing requests
-- keep the deadlines they were given; new ones are counted in this zone (UTC until it is set).
ALTER TABLE "Organization" ADD COLUMN "timeZone" TEXT NOT NULL DEFAULT 'UTC';
