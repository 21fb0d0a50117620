-- Systems without an API: a "manual" integration opens a task for a person (its owners) per request.
ALTER TYPE "IntegrationType" ADD VALUE IF NOT EXISTS 'MANUAL';

-- One task per run of a manual integration request; a retry opens a new one (trackingId names the current task).
CREATE TABLE "ManualTask" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "deletionRequestId" TEXT NOT NULL,
    "integrationRequestId" TEXT NOT NULL,
    "integrationName" TEXT NOT NULL,
    -- Owner addresses the task was mailed to (the configuration's, frozen when it was opened).
    "owners" JSONB NOT NULL DEFAULT '[]',
    -- sha256 of the task link's token: the link opens the task page without an account.
    "tokenHash" TEXT NOT NULL,
    "tokenExpiresAt" TIMESTAMP(3) NOT NULL,
    "tokenRevokedAt" TIMESTAMP(3),
    -- When the owners are expected to have answered (opened + days to complete).
    "dueAt" TIMESTAMP(3) NOT NULL,
    "reminderEveryDays" INTEGER NOT NULL DEFAULT 0,
    "lastRemindedAt" TIMESTAMP(3),
    "escalatedAt" TIMESTAMP(3),
    -- done, not_found or cannot; null while open.
    "answer" TEXT,
    -- What was deleted (done), or why it cannot be (cannot).
    "answerNote" TEXT,
    "answeredAt" TIMESTAMP(3),
    -- "link" (the owner's task link), "member" or "api"; who: the address or the member's user id.
    "answeredVia" TEXT,
    "answeredBy" TEXT,
    "answeredFrom" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ManualTask_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "ManualTask_tokenHash_key" ON "ManualTask"("tokenHash");
CREATE INDEX "ManualTask_integrationRequestId_idx" ON "ManualTask"("integrationRequestId");
CREATE INDEX "ManualTask_deletionRequestId_idx" ON "ManualTask"("deletionRequestId");
-- Open tasks of a workspace (the REST list) and of every organization (reminders): only open ones sit here.
CREATE INDEX "ManualTask_open_idx" ON "ManualTask"("workspaceId", "createdAt" DESC, "id" DESC) WHERE "answeredAt" IS NULL AND "tokenRevokedAt" IS NULL;

ALTER TABLE "ManualTask" ADD CONSTRAINT "ManualTask_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ManualTask" ADD CONSTRAINT "ManualTask_deletionRequestId_fkey" FOREIGN KEY ("deletionRequestId") REFERENCES "DeletionRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ManualTask" ADD CONSTRAINT "ManualTask_integrationRequestId_fkey" FOREIGN KEY ("integrationRequestId") REFERENCES "IntegrationRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The file given with a "done" answer, sealed with the organization's data key (bound to the task).
CREATE TABLE "ManualTaskEvidence" (
    "taskId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "contentCipher" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ManualTaskEvidence_pkey" PRIMARY KEY ("taskId")
);

ALTER TABLE "ManualTaskEvidence" ADD CONSTRAINT "ManualTaskEvidence_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "ManualTask"("id") ON DELETE CASCADE ON UPDATE CASCADE;
