import { AppError } from '../../lib/errors';
import type { Role } from '@shared/statuses';
import type { TokenScope } from '@shared/scopes';

/** Who is acting: threaded into every service call so audit entries name them. */
export interface Actor {
  userId: string;
  organizationId: string;
  role: Role;
  via: 'pat' | 'session' | 'cli';
  tokenId?: string;
  sessionId?: string;
  /** A token limited to scopes; undefined = every scope (sessions, the CLI, tokens without limits). */
  scopes?: readonly TokenScope[];
  /** A token limited to workspaces; undefined = every workspace of the organization. */
  workspaceIds?: readonly string[];
}

/** Whether the actor may act on this workspace (a token can be limited to some). */
export function mayUseWorkspace(actor: Pick<Actor, 'workspaceIds'>, workspaceId: string): boolean {
  return !actor.workspaceIds || actor.workspaceIds.includes(workspaceId);
}

/** A workspace the caller named explicitly (path, key) but its token is not limited to: 403. */
export function assertWorkspaceAllowed(actor: Pick<Actor, 'workspaceIds'>, workspaceId: string): void {
  if (!mayUseWorkspace(actor, workspaceId))
    throw new AppError('FORBIDDEN', `This token is not allowed to act on workspace ${workspaceId}`);
}

export const ROLE_RANK: Record<Role, number> = { MEMBER: 1, ADMIN: 2, OWNER: 3 };

export function hasRole(actor: Pick<Actor, 'role'>, minimum: Role): boolean {
  return ROLE_RANK[actor.role] >= ROLE_RANK[minimum];
}
