-- A person, every identifier: typed identifiers per request, the organization's own types,
-- identity lookups before the fan-out, and the type each integration consumes.
CREATE TABLE "IdentifierType" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "IdentifierType_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "IdentifierType_organizationId_name_key" ON "IdentifierType"("organizationId", "name");
ALTER TABLE "IdentifierType" ADD CONSTRAINT "IdentifierType_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "RequestIdentifier" (
    "id" TEXT NOT NULL,
    "deletionRequestId" TEXT NOT NULL,
    "type" TEXT,
    "value" TEXT,
    "valueHmac" TEXT NOT NULL,
    "matchHmac" TEXT NOT NULL,
    "primary" BOOLEAN NOT NULL DEFAULT false,
    "source" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "RequestIdentifier_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "RequestIdentifier_deletionRequestId_valueHmac_key" ON "RequestIdentifier"("deletionRequestId", "valueHmac");
CREATE INDEX "RequestIdentifier_matchHmac_idx" ON "RequestIdentifier"("matchHmac");
ALTER TABLE "RequestIdentifier" ADD CONSTRAINT "RequestIdentifier_deletionRequestId_fkey" FOREIGN KEY ("deletionRequestId") REFERENCES "DeletionRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "IdentityLookup" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "kind" TEXT NOT NULL,
    "accountId" TEXT,
    "config" JSONB NOT NULL,
    "secretCipher" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "IdentityLookup_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "IdentityLookup_workspaceId_name_key" ON "IdentityLookup"("workspaceId", "name");
CREATE INDEX "IdentityLookup_workspaceId_position_idx" ON "IdentityLookup"("workspaceId", "position");
CREATE INDEX "IdentityLookup_accountId_idx" ON "IdentityLookup"("accountId");
ALTER TABLE "IdentityLookup" ADD CONSTRAINT "IdentityLookup_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "IdentityLookup" ADD CONSTRAINT "IdentityLookup_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

ALTER TABLE "Integration" ADD COLUMN "consumesType" TEXT;
ALTER TABLE "IntegrationRequest" ADD COLUMN "consumesType" TEXT;
ALTER TABLE "DeletionRequest" ADD COLUMN "lookupsPending" BOOLEAN NOT NULL DEFAULT false,
                              ADD COLUMN "lookupLockedUntil" TIMESTAMP(3);
