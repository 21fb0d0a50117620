-- Iterable, Salesforce and Shopify connectors.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'ITERABLE';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'SHOPIFY';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'SALESFORCE';
