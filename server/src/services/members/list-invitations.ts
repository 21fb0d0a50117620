import type { Db } from '../../db/client';
import type { Actor } from '../auth/actor';

/** Invitations not yet accepted and not expired, newest first (never their tokens). */
export async function listInvitations(db: Db, actor: Actor, now = new Date()) {
  const invitations = await db.invitation.findMany({
    where: { organizationId: actor.organizationId, acceptedAt: null, expiresAt: { gt: now } },
    select: { id: true, email: true, role: true, expiresAt: true, createdAt: true },
    orderBy: { createdAt: 'desc' },
  });
  return invitations.map((i) => ({ ...i, expiresAt: i.expiresAt.toISOString(), createdAt: i.createdAt.toISOString() }));
}
