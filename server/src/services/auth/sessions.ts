import type { DbOrTx } from '../../db/client';
import { ID_PREFIX, newId } from '../../lib/ids';
import { hashToken, randomSecret } from '../../lib/tokens';

export const SESSION_TTL_SECONDS = 14 * 24 * 3600;

/** A new session; the caller sets the returned token as the cookie. Only its hash is stored. */
export async function createSession(db: DbOrTx, userId: string, organizationId: string | null): Promise<string> {
  const token = randomSecret();
  await db.session.create({
    data: {
      id: newId(ID_PREFIX.session),
      tokenHash: hashToken(token),
      userId,
      activeOrganizationId: organizationId,
      expiresAt: new Date(Date.now() + SESSION_TTL_SECONDS * 1000),
    },
  });
  return token;
}

export async function deleteSession(db: DbOrTx, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Who a session cookie belongs to (organization aside), or null for a missing or expired session. */
export async function findSessionUser(
  db: DbOrTx,
  token: string,
  now = new Date(),
): Promise<{ sessionId: string; userId: string } | null> {
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, userId: true, expiresAt: true },
  });
  return session && session.expiresAt > now ? { sessionId: session.id, userId: session.userId } : null;
}
