import { hotQuery, type Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { hashToken, isWellFormedToken } from '../../lib/tokens';
import type { Role } from '@shared/statuses';
import type { TokenScope } from '@shared/scopes';
import type { Actor } from './actor';
import { patCacheFor } from './pat-cache';

const LAST_USED_RESOLUTION_MS = 60_000;
/** TOKEN_CACHE_SECONDS' default. */
const DEFAULT_CACHE_MS = 10_000;

interface PatRow {
  id: string;
  userId: string;
  organizationId: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  role: Role | null;
  scopes: string[];
  workspaceIds: string[];
}

/** A token row as `authenticatePat` reads it, and as the cache keeps it. */
function lookupPat(db: Db, tokenHash: string): Promise<PatRow | null> {
  return hotQuery<PatRow>(
    db,
    `SELECT p.id, p."userId", p."organizationId", p."revokedAt", p."expiresAt", p."lastUsedAt", m.role::text AS role,
            p.scopes, p."workspaceIds"
       FROM "PersonalAccessToken" p
       LEFT JOIN "Membership" m ON m."userId" = p."userId" AND m."organizationId" = p."organizationId"
      WHERE p."tokenHash" = $1`,
    [tokenHash],
  ).then((rows) => rows[0] ?? null);
}

/**
 * Resolves a PAT from `X-API-Key`. Missing, malformed, unknown, revoked and expired are all 401.
 * Runs on every public API call: the token and its owner's membership come in one query,
 * and a valid token is then kept for a few seconds (`PatCache`, which every process empties
 * the moment the database reports a revocation, a role change or a removed membership).
 */
export async function authenticatePat(
  db: Db,
  token: string,
  options: { cacheMs?: number; now?: Date } = {},
): Promise<Actor> {
  const { cacheMs = DEFAULT_CACHE_MS, now = new Date() } = options;
  if (!isWellFormedToken('personalAccessToken', token)) throw new AppError('UNAUTHORIZED', 'Invalid API key');
  const tokenHash = hashToken(token);
  const cache = cacheMs > 0 ? patCacheFor<PatRow>(db) : null;
  const usable = (row: PatRow) => !row.revokedAt && row.role !== null && (!row.expiresAt || row.expiresAt > now);
  const pat = cache
    ? await cache.get(tokenHash, () => lookupPat(db, tokenHash), usable, cacheMs)
    : await lookupPat(db, tokenHash);
  if (!pat) throw new AppError('UNAUTHORIZED', 'Invalid API key');
  if (pat.revokedAt) throw new AppError('UNAUTHORIZED', 'This personal access token has been revoked');
  if (pat.expiresAt && pat.expiresAt <= now)
    throw new AppError('UNAUTHORIZED', 'This personal access token has expired');
  if (!pat.role)
    throw new AppError('UNAUTHORIZED', 'The owner of this token is no longer a member of its organization');
  if (!pat.lastUsedAt || now.getTime() - pat.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort and coarse-grained: the hot path does not wait on it (and a cached row remembers it was done).
    pat.lastUsedAt = now;
    db.personalAccessToken.update({ where: { id: pat.id }, data: { lastUsedAt: now } }).catch(() => {});
  }
  return {
    userId: pat.userId,
    organizationId: pat.organizationId,
    role: pat.role,
    via: 'pat',
    tokenId: pat.id,
    // Empty lists are a token without limits (every token made before scopes existed).
    ...(pat.scopes.length > 0 ? { scopes: pat.scopes as TokenScope[] } : {}),
    ...(pat.workspaceIds.length > 0 ? { workspaceIds: pat.workspaceIds } : {}),
  };
}

interface SessionRow {
  id: string;
  userId: string;
  expiresAt: Date;
  organizationId: string | null;
  role: Role | null;
}

/**
 * Resolves the dashboard session cookie. Every dashboard call starts here, so the session and the
 * membership it acts through come in one prepared statement: the one in the session's active
 * organization, or else the user's first (when that organization was left or removed).
 */
export async function authenticateSession(db: Db, sessionToken: string, now = new Date()): Promise<Actor> {
  const [session] = await hotQuery<SessionRow>(
    db,
    `SELECT s.id, s."userId", s."expiresAt", m."organizationId", m.role::text AS role
       FROM "Session" s
       LEFT JOIN LATERAL (
         SELECT m."organizationId", m.role FROM "Membership" m
          WHERE m."userId" = s."userId"
          ORDER BY COALESCE(m."organizationId" = s."activeOrganizationId", false) DESC, m."createdAt", m.id
          LIMIT 1
       ) m ON true
      WHERE s."tokenHash" = $1`,
    [hashToken(sessionToken)],
  );
  if (!session || session.expiresAt <= now) throw new AppError('UNAUTHORIZED', 'Please sign in');
  if (!session.organizationId || !session.role)
    throw new AppError('FORBIDDEN', 'You are not a member of any organization');
  return {
    userId: session.userId,
    organizationId: session.organizationId,
    role: session.role,
    via: 'session',
    sessionId: session.id,
  };
}
