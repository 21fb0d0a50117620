-- The key of the SQL rules' hash action (HMAC-SHA256), sealed with the organization's data key.
-- Sealing needs the master key, which SQL does not have: integrations made before this get
-- their key from the service the first time one of their deletions runs.
ALTER TABLE "Integration" ADD COLUMN "hashKeyCipher" TEXT;
