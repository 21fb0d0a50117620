-- Fullstory, Heap and Hotjar connectors.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'FULLSTORY';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'HEAP';
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'HOTJAR';
