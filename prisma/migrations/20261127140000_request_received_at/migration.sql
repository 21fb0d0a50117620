-- When the subject's request was received, when before it was entered: its deadline runs from then.
ALTER TABLE "DeletionRequest" ADD COLUMN "receivedAt" TIMESTAMP(3);
