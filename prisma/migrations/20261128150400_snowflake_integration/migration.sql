-- Snowflake: an integration type, and the account type holding its key pair.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'SNOWFLAKE';
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'SNOWFLAKE';
