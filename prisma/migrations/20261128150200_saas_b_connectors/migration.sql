-- Freshdesk, Pipedrive, Chargebee and OneSignal connectors.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'FRESHDESK';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'PIPEDRIVE';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'CHARGEBEE';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'ONESIGNAL';
