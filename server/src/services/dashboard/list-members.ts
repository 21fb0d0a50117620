import type { Db } from '../../db/client';
import type { Actor } from '../auth/actor';

/** Members of the actor's organization, for the "created by" filter and display names. */
export async function listMembers(db: Db, actor: Actor) {
  const memberships = await db.membership.findMany({
    where: { organizationId: actor.organizationId },
    orderBy: { createdAt: 'asc' },
    select: { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
  });
  return memberships.map((m) => ({ ...m.user, role: m.role, joinedAt: m.createdAt.toISOString() }));
}
