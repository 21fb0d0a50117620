-- Google BigQuery: the account type holding a service account's JSON key.
ALTER TYPE "AccountType" ADD VALUE IF NOT EXISTS 'GOOGLE_SERVICE_ACCOUNT';
