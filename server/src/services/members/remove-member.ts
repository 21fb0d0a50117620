import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { forgetVerifiedTokens } from '../auth/pat-cache';
import { recordAudit } from '../audit/record-audit';
import { assertAnotherOwnerRemains } from './owners';

/**
 * Removes a member from the organization (never the last owner). Their access tokens for it
 * are revoked; requests they created stay, still attributed to them.
 */
export async function removeMember(db: Db, actor: Actor, input: { userId: string }, now = new Date()) {
  const result = await db.$transaction(async (tx) => {
    const membership = await tx.membership.findUnique({
      where: { userId_organizationId: { userId: input.userId, organizationId: actor.organizationId } },
      select: { id: true, role: true, user: { select: { email: true } } },
    });
    if (!membership) throw notFound('Member');
    if (membership.role === 'OWNER') await assertAnotherOwnerRemains(tx, actor.organizationId, input.userId);
    await tx.membership.delete({ where: { id: membership.id } });
    const revoked = await tx.personalAccessToken.updateMany({
      where: { userId: input.userId, organizationId: actor.organizationId, revokedAt: null },
      data: { revokedAt: now },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'member.removed',
      summary: `${membership.user.email} removed from the organization${revoked.count ? ` (${revoked.count} access token(s) revoked)` : ''}`,
      details: { userId: input.userId, role: membership.role, revokedTokens: revoked.count },
    });
    return { userId: input.userId };
  });
  forgetVerifiedTokens(db);
  return result;
}
