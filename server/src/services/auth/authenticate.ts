import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { hashToken, isWellFormedToken } from '../../lib/tokens';
import type { Actor } from './actor';

const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolves a PAT from `X-API-Key`. Missing, malformed, unknown, revoked and expired are all 401. */
export async function authenticatePat(db: Db, token: string, now = new Date()): Promise<Actor> {
  if (!isWellFormedToken('personalAccessToken', token)) throw new AppError('UNAUTHORIZED', 'Invalid API key');
  const pat = await db.personalAccessToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      userId: true,
      organizationId: true,
      revokedAt: true,
      expiresAt: true,
      lastUsedAt: true,
      user: { select: { memberships: { select: { organizationId: true, role: true } } } },
    },
  });
  if (!pat) throw new AppError('UNAUTHORIZED', 'Invalid API key');
  if (pat.revokedAt) throw new AppError('UNAUTHORIZED', 'This personal access token has been revoked');
  if (pat.expiresAt && pat.expiresAt <= now) throw new AppError('UNAUTHORIZED', 'This personal access token has expired');
  const membership = pat.user.memberships.find((m) => m.organizationId === pat.organizationId);
  if (!membership) throw new AppError('UNAUTHORIZED', 'The owner of this token is no longer a member of its organization');
  if (!pat.lastUsedAt || now.getTime() - pat.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort and coarse-grained: the hot path does not wait on it.
    db.personalAccessToken.update({ where: { id: pat.id }, data: { lastUsedAt: now } }).catch(() => {});
  }
  return { userId: pat.userId, organizationId: pat.organizationId, role: membership.role, via: 'pat', tokenId: pat.id };
}

/** Resolves the dashboard session cookie. */
export async function authenticateSession(db: Db, sessionToken: string, now = new Date()): Promise<Actor> {
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(sessionToken) },
    select: {
      id: true,
      userId: true,
      expiresAt: true,
      activeOrganizationId: true,
      user: { select: { memberships: { select: { organizationId: true, role: true }, orderBy: { createdAt: 'asc' } } } },
    },
  });
  if (!session || session.expiresAt <= now) throw new AppError('UNAUTHORIZED', 'Please sign in');
  const memberships = session.user.memberships;
  const membership = memberships.find((m) => m.organizationId === session.activeOrganizationId) ?? memberships[0];
  if (!membership) throw new AppError('FORBIDDEN', 'You are not a member of any organization');
  return { userId: session.userId, organizationId: membership.organizationId, role: membership.role, via: 'session', sessionId: session.id };
}
