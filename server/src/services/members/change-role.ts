import type { Role } from '@shared/statuses';
import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { forgetVerifiedTokens } from '../auth/pat-cache';
import { recordAudit } from '../audit/record-audit';
import { assertAnotherOwnerRemains } from './owners';

/** Gives a member another role; the last owner cannot be demoted. */
export async function changeMemberRole(db: Db, actor: Actor, input: { userId: string; role: Role }) {
  const result = await db.$transaction(async (tx) => {
    const membership = await tx.membership.findUnique({
      where: { userId_organizationId: { userId: input.userId, organizationId: actor.organizationId } },
      select: { id: true, role: true, user: { select: { email: true } } },
    });
    if (!membership) throw notFound('Member');
    if (membership.role === input.role) return { userId: input.userId, role: input.role };
    if (membership.role === 'OWNER') await assertAnotherOwnerRemains(tx, actor.organizationId, input.userId);
    await tx.membership.update({ where: { id: membership.id }, data: { role: input.role } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'member.role_changed',
      summary: `${membership.user.email} is now ${input.role.toLowerCase()} (was ${membership.role.toLowerCase()})`,
      details: { userId: input.userId, from: membership.role, to: input.role },
    });
    return { userId: input.userId, role: input.role };
  });
  forgetVerifiedTokens(db);
  return result;
}
