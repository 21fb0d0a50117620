-- A personal access token may be limited to scopes and to workspaces. Empty means no limit,
-- so every token created before this change keeps full access.
ALTER TABLE "PersonalAccessToken" ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "PersonalAccessToken" ADD COLUMN "workspaceIds" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
