-- Google BigQuery: the integration type, and the account type holding a service account's JSON key.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'BIGQUERY';
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'GOOGLE_SERVICE_ACCOUNT';
