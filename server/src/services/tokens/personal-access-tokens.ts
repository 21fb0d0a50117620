import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { generateToken } from '../../lib/tokens';
import type { Actor } from '../auth/actor';
import { forgetVerifiedTokens } from '../auth/pat-cache';
import { recordAudit } from '../audit/record-audit';
import type { TokenScope } from '@shared/scopes';

export const tokenSelect = {
  id: true,
  name: true,
  prefix: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  scopes: true,
  workspaceIds: true,
} satisfies Prisma.PersonalAccessTokenSelect;

export interface CreateTokenInput {
  name: string;
  expiresAt?: Date | null;
  /** Empty or omitted: every scope. */
  scopes?: readonly TokenScope[];
  /** Empty or omitted: every workspace of the organization. */
  workspaceIds?: readonly string[];
}

/**
 * Creates a PAT for the actor in their organization; the secret is returned this once only.
 * A token can be limited to scopes and workspaces, never widened beyond its creator's own.
 */
export async function createPersonalAccessToken(db: Db, actor: Actor, input: CreateTokenInput) {
  const { token, hash, displayPrefix } = generateToken('personalAccessToken');
  const scopes = [...new Set(input.scopes ?? [])].sort();
  const workspaceIds = [...new Set(input.workspaceIds ?? [])];
  return db.$transaction(async (tx) => {
    if (workspaceIds.length > 0) {
      const found = await tx.workspace.count({
        where: { id: { in: workspaceIds }, organizationId: actor.organizationId },
      });
      if (found !== workspaceIds.length) throw notFound('Workspace');
    }
    const created = await tx.personalAccessToken.create({
      data: {
        id: newId(ID_PREFIX.token),
        userId: actor.userId,
        organizationId: actor.organizationId,
        name: input.name,
        prefix: displayPrefix,
        tokenHash: hash,
        expiresAt: input.expiresAt ?? null,
        scopes,
        workspaceIds,
      },
      select: tokenSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'pat.created',
      summary: `Personal access token "${input.name}" (${displayPrefix}…) created`,
      details: { tokenId: created.id, expiresAt: created.expiresAt?.toISOString() ?? null, scopes, workspaceIds },
    });
    return { ...created, token };
  });
}

export function listPersonalAccessTokens(db: Db, actor: Actor) {
  return db.personalAccessToken.findMany({
    where: { userId: actor.userId, organizationId: actor.organizationId },
    select: tokenSelect,
    orderBy: { createdAt: 'desc' },
  });
}

/** Revocation takes effect on the next request: verified tokens are forgotten here at once, and in other processes on the database's notification. */
export async function revokePersonalAccessToken(db: Db, actor: Actor, tokenId: string) {
  const result = await db.$transaction(async (tx) => {
    const existing = await tx.personalAccessToken.findFirst({
      where: { id: tokenId, userId: actor.userId, organizationId: actor.organizationId },
      select: { id: true, name: true, prefix: true, revokedAt: true },
    });
    if (!existing) throw notFound('Personal access token');
    if (existing.revokedAt)
      return tx.personalAccessToken.findUniqueOrThrow({ where: { id: tokenId }, select: tokenSelect });
    const revoked = await tx.personalAccessToken.update({
      where: { id: tokenId },
      data: { revokedAt: new Date() },
      select: tokenSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'pat.revoked',
      summary: `Personal access token "${existing.name}" (${existing.prefix}…) revoked`,
      details: { tokenId },
    });
    return revoked;
  });
  forgetVerifiedTokens(db);
  return result;
}
