-- Polls of accepted jobs are scheduled through "nextAttemptAt", the queue column; this one was never written.
ALTER TABLE "IntegrationRequest" DROP COLUMN "nextPollAt";
