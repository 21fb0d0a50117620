import type { Role } from '@shared/statuses';

/** Who is acting: threaded into every service call so audit entries name them. */
export interface Actor {
  userId: string;
  organizationId: string;
  role: Role;
  via: 'pat' | 'session' | 'cli';
  tokenId?: string;
  sessionId?: string;
}

export const ROLE_RANK: Record<Role, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export function hasRole(actor: Pick<Actor, 'role'>, minimum: Role): boolean {
  return ROLE_RANK[actor.role] >= ROLE_RANK[minimum];
}
