import { hotQuery, type Db } from '../../db/client';
import type { Role } from '@shared/statuses';
import type { Actor } from '../auth/actor';

interface MemberRow {
  id: string;
  name: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

/**
 * Members of the actor's organization, for the "created by" filter and display names, in the
 * order they joined. Every Requests screen asks for it: one prepared statement.
 */
export async function listMembers(db: Db, actor: Actor) {
  const rows = await hotQuery<MemberRow>(
    db,
    `SELECT u.id, u.name, u.email, m.role::text AS role, m."createdAt" AS "joinedAt"
       FROM "Membership" m JOIN "User" u ON u.id = m."userId"
      WHERE m."organizationId" = $1
      ORDER BY m."createdAt", m.id`,
    [actor.organizationId],
  );
  return rows.map((row) => ({ ...row, joinedAt: row.joinedAt.toISOString() }));
}
