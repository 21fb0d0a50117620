-- Legal deadlines, notification settings, mailed user tokens, certificate signing keys, re-verification.
ALTER TABLE "Organization" ADD COLUMN "defaultRegulation" TEXT NOT NULL DEFAULT 'GDPR',
  ADD COLUMN "reverifyAfterDays" INTEGER;

ALTER TABLE "User" ADD COLUMN "emailVerifiedAt" TIMESTAMP(3);

ALTER TABLE "Workspace" ADD COLUMN "regulation" TEXT;

ALTER TABLE "DeletionRequest" ADD COLUMN "regulation" TEXT,
  ADD COLUMN "dueAt" TIMESTAMP(3),
  ADD COLUMN "dueExtendedAt" TIMESTAMP(3),
  ADD COLUMN "dueExtensionReason" TEXT;

CREATE INDEX "DeletionRequest_organizationId_dueAt_idx" ON "DeletionRequest"("organizationId", "dueAt");

ALTER TABLE "IntegrationRequest" ADD COLUMN "reverifiedAt" TIMESTAMP(3),
  ADD COLUMN "reappearedAt" TIMESTAMP(3);

CREATE TABLE "RegulationPolicy" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "days" INTEGER NOT NULL,
    "extensionDays" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "RegulationPolicy_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "RegulationPolicy_organizationId_name_key" ON "RegulationPolicy"("organizationId", "name");
ALTER TABLE "RegulationPolicy" ADD CONSTRAINT "RegulationPolicy_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "NotificationSettings" (
    "organizationId" TEXT NOT NULL,
    "events" JSONB NOT NULL DEFAULT '{}',
    "emailRecipients" JSONB NOT NULL DEFAULT '[]',
    "slackWebhookCipher" TEXT,
    "slackWebhookHint" TEXT,
    "auditCursor" BIGINT NOT NULL DEFAULT 0,
    "lastDigestAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "NotificationSettings_pkey" PRIMARY KEY ("organizationId")
);
ALTER TABLE "NotificationSettings" ADD CONSTRAINT "NotificationSettings_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "UserToken" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "UserToken_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "UserToken_tokenHash_key" ON "UserToken"("tokenHash");
CREATE INDEX "UserToken_userId_purpose_createdAt_idx" ON "UserToken"("userId", "purpose", "createdAt");
ALTER TABLE "UserToken" ADD CONSTRAINT "UserToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "OrganizationSigningKey" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "privateKeyCipher" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OrganizationSigningKey_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "OrganizationSigningKey_organizationId_createdAt_idx" ON "OrganizationSigningKey"("organizationId", "createdAt");
ALTER TABLE "OrganizationSigningKey" ADD CONSTRAINT "OrganizationSigningKey_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
