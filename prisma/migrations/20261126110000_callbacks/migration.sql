-- Status callbacks: endpoints an organization registers, and their deliveries. Each delivery
-- row is its own durable queue entry (claimed with FOR UPDATE SKIP LOCKED and a lease, like
-- integration requests); its id is the Standard Webhooks `webhook-id`, fixed when the event
-- is recorded, so a retry after a crash sends the same id.
CREATE TYPE "CallbackDeliveryStatus" AS ENUM ('PENDING', 'DELIVERED', 'FAILED');

CREATE TABLE "CallbackEndpoint" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "workspaceId" TEXT,
    "url" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "events" TEXT[] NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secretCipher" TEXT NOT NULL,
    "previousSecretCipher" TEXT,
    "previousSecretExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "CallbackEndpoint_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "CallbackEndpoint_organizationId_idx" ON "CallbackEndpoint"("organizationId");
ALTER TABLE "CallbackEndpoint" ADD CONSTRAINT "CallbackEndpoint_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "CallbackEndpoint" ADD CONSTRAINT "CallbackEndpoint_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "CallbackDelivery" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "deletionRequestId" TEXT,
    "body" TEXT NOT NULL,
    "status" "CallbackDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "lockedBy" TEXT,
    "lockedUntil" TIMESTAMP(3),
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "lastAttemptAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "CallbackDelivery_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "CallbackDelivery_nextAttemptAt_idx" ON "CallbackDelivery"("nextAttemptAt");
CREATE INDEX "CallbackDelivery_endpointId_createdAt_idx" ON "CallbackDelivery"("endpointId", "createdAt" DESC);
ALTER TABLE "CallbackDelivery" ADD CONSTRAINT "CallbackDelivery_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "CallbackDelivery" ADD CONSTRAINT "CallbackDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "CallbackEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;
