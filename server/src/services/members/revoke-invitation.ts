import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

/** Withdraws an unused invitation: its link stops working. */
export async function revokeInvitation(db: Db, actor: Actor, input: { invitationId: string }) {
  const invitation = await db.invitation.findFirst({
    where: { id: input.invitationId, organizationId: actor.organizationId, acceptedAt: null },
    select: { id: true, email: true },
  });
  if (!invitation) throw notFound('Invitation');
  await db.$transaction(async (tx) => {
    await tx.invitation.delete({ where: { id: invitation.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'member.invitation_revoked',
      summary: `Invitation of ${invitation.email} withdrawn`,
      details: { invitationId: invitation.id },
    });
  });
  return { id: invitation.id };
}
