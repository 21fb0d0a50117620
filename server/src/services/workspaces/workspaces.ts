import { hotQuery, selectedColumns, type Db, type DbOrTx } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import type { Keyring } from '../../lib/crypto';
import { openSecret, sealSecret } from '../keys/secret-store';
import { notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { generateToken, hashToken, isWellFormedToken } from '../../lib/tokens';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

export const workspaceSelect = {
  id: true,
  organizationId: true,
  name: true,
  apiKeyPrefix: true,
  apiKeyRotatedAt: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.WorkspaceSelect;

export const workspaceApiKeyContext = (workspaceId: string) => `workspace-api-key:${workspaceId}`;

/** A new key: its hash for lookups, and the key sealed with the organization's data key so admins can reveal it. */
async function newWorkspaceKey(tx: DbOrTx, keyring: Keyring, organizationId: string, workspaceId: string) {
  const { token, hash, displayPrefix } = generateToken('workspaceApiKey');
  const apiKeyCipher = await sealSecret(
    { prisma: tx, keyring },
    organizationId,
    token,
    workspaceApiKeyContext(workspaceId),
  );
  return { token, data: { apiKeyHash: hash, apiKeyPrefix: displayPrefix, apiKeyCipher } };
}

export async function createWorkspace(db: Db, keyring: Keyring, actor: Actor, input: { name: string }) {
  const id = newId(ID_PREFIX.workspace);
  return db.$transaction(async (tx) => {
    const key = await newWorkspaceKey(tx, keyring, actor.organizationId, id);
    const workspace = await tx.workspace.create({
      data: { id, organizationId: actor.organizationId, name: input.name, ...key.data },
      select: workspaceSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'workspace.created',
      summary: `Workspace "${input.name}" created`,
      details: { workspaceId: id },
    });
    return { ...workspace, apiKey: key.token };
  });
}

/** A row of `workspaceSelect`. */
type WorkspaceRow = Prisma.WorkspaceGetPayload<{ select: typeof workspaceSelect }>;

/** The organization's workspaces, oldest first (every screen with a workspace filter asks: one prepared statement). */
export function listWorkspaces(db: Db, actor: Actor): Promise<WorkspaceRow[]> {
  return hotQuery<WorkspaceRow>(
    db,
    `SELECT ${selectedColumns(workspaceSelect)} FROM "Workspace" WHERE "organizationId" = $1 ORDER BY "createdAt", id`,
    [actor.organizationId],
  );
}

/** The workspace if it belongs to the actor's organization; another organization's is "not found". */
export async function getWorkspace(db: DbOrTx, actor: Actor, workspaceId: string) {
  const workspace = await db.workspace.findFirst({
    where: { id: workspaceId, organizationId: actor.organizationId },
    select: workspaceSelect,
  });
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

export async function renameWorkspace(db: Db, actor: Actor, input: { workspaceId: string; name: string }) {
  return db.$transaction(async (tx) => {
    const before = await getWorkspace(tx, actor, input.workspaceId);
    const workspace = await tx.workspace.update({
      where: { id: before.id },
      data: { name: input.name },
      select: workspaceSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'workspace.renamed',
      summary: `Workspace "${before.name}" renamed to "${input.name}"`,
      details: { workspaceId: before.id },
    });
    return workspace;
  });
}

/** Deletes the workspace with its integrations and request history. */
export async function deleteWorkspace(db: Db, actor: Actor, workspaceId: string) {
  return db.$transaction(async (tx) => {
    const workspace = await getWorkspace(tx, actor, workspaceId);
    const [integrations, requests] = await Promise.all([
      tx.integration.count({ where: { workspaceId } }),
      tx.deletionRequest.count({ where: { workspaceId } }),
    ]);
    await tx.workspace.delete({ where: { id: workspaceId } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'workspace.deleted',
      summary: `Workspace "${workspace.name}" deleted with ${integrations} integration(s) and ${requests} request(s)`,
      details: { workspaceId, integrations, requests },
    });
    return { id: workspaceId, deletedIntegrations: integrations, deletedRequests: requests };
  });
}

export async function revealWorkspaceApiKey(db: Db, keyring: Keyring, actor: Actor, workspaceId: string) {
  await getWorkspace(db, actor, workspaceId);
  const row = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { apiKeyCipher: true } });
  await recordAudit(db, actor, {
    organizationId: actor.organizationId,
    action: 'workspace.api_key_revealed',
    summary: 'Workspace API key revealed',
    details: { workspaceId },
  });
  return {
    apiKey: await openSecret(
      { prisma: db, keyring },
      actor.organizationId,
      row.apiKeyCipher,
      workspaceApiKeyContext(workspaceId),
    ),
  };
}

/** A new key replaces the old one at once: lookups go by the stored hash. */
export async function rotateWorkspaceApiKey(db: Db, keyring: Keyring, actor: Actor, workspaceId: string) {
  return db.$transaction(async (tx) => {
    await getWorkspace(tx, actor, workspaceId);
    const key = await newWorkspaceKey(tx, keyring, actor.organizationId, workspaceId);
    const workspace = await tx.workspace.update({
      where: { id: workspaceId },
      data: { ...key.data, apiKeyRotatedAt: new Date() },
      select: workspaceSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'workspace.api_key_rotated',
      summary: 'Workspace API key rotated',
      details: { workspaceId },
    });
    return { ...workspace, apiKey: key.token };
  });
}

/** The actor's workspace that a Workspace API Key names; unknown or foreign keys are "not found". */
export async function findWorkspaceByApiKey(db: DbOrTx, actor: Actor, apiKey: string) {
  const trimmed = apiKey.trim();
  if (!isWellFormedToken('workspaceApiKey', trimmed)) throw notFound('Workspace for this API key');
  // On every create: a raw lookup costs a fraction of a compiled ORM query.
  const [workspace] = await db.$queryRaw<{ id: string; organizationId: string }[]>`
    SELECT id, "organizationId" FROM "Workspace" WHERE "apiKeyHash" = ${hashToken(trimmed)}`;
  if (!workspace || workspace.organizationId !== actor.organizationId) throw notFound('Workspace for this API key');
  return workspace;
}
