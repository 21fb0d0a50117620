-- Attempts are numbered across retries, and each says which configuration it used.
ALTER TABLE "IntegrationRequest" ADD COLUMN "priorAttempts" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "configTakenAt" TIMESTAMP(3);
