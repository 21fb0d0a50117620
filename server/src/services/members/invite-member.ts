import { INVITATION_TTL_DAYS } from '@shared/schemas/members';
import type { Role } from '@shared/statuses';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { generateToken } from '../../lib/tokens';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { invitationLink } from './invitation-link';

/**
 * Invites an email address with a role. The link is returned once (only the token's hash is
 * stored); inviting the same address again replaces its earlier, unused invitation.
 */
export async function inviteMember(
  db: Db,
  actor: Actor,
  input: { email: string; role: Role; publicUrl: string },
  now = new Date(),
) {
  const email = input.email.trim().toLowerCase();
  const existing = await db.membership.findFirst({
    where: { organizationId: actor.organizationId, user: { email } },
    select: { id: true },
  });
  if (existing)
    throw new AppError('CONFLICT', `${email} is already a member of this organization`, {
      issues: [{ path: ['email'], message: 'Already a member' }],
    });
  const { token, hash } = generateToken('invitation');
  const id = newId(ID_PREFIX.invitation);
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000);
  await db.$transaction(async (tx) => {
    await tx.invitation.deleteMany({ where: { organizationId: actor.organizationId, email, acceptedAt: null } });
    await tx.invitation.create({
      data: { id, organizationId: actor.organizationId, email, role: input.role, tokenHash: hash, expiresAt },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'member.invited',
      summary: `${email} invited as ${input.role.toLowerCase()}`,
      details: { invitationId: id, email, role: input.role },
    });
  });
  return {
    id,
    email,
    role: input.role,
    expiresAt: expiresAt.toISOString(),
    link: invitationLink(input.publicUrl, token),
  };
}
