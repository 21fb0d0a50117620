-- Snowflake: the account type holding its key pair.
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'SNOWFLAKE';
