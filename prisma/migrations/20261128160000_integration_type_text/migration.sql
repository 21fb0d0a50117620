-- Integration types are text checked against the connectors the application registers
-- (shared/src/integrations/connectors.ts), so a new connector needs no database change.
ALTER TABLE "Account" ALTER COLUMN "integrationType" TYPE TEXT USING "integrationType"::text;
ALTER TABLE "Integration" ALTER COLUMN "type" TYPE TEXT USING "type"::text;
ALTER TABLE "IntegrationRequest" ALTER COLUMN "integrationType" TYPE TEXT USING "integrationType"::text;
DROP TYPE "IntegrationType";
