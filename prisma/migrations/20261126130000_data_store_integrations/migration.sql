-- Data stores beyond PostgreSQL: MySQL/MariaDB (database accounts), Redis, Amazon S3 and DynamoDB (AWS accounts).
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'MYSQL';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'REDIS';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'S3';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'DYNAMODB';
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'REDIS';
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'AWS';
