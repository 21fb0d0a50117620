import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { DUMMY_PASSWORD_HASH } from '../../lib/passwords';
import { verifyAccountPassword } from './account-password';
import { createSession } from './sessions';

/**
 * Email + password; the same error and the same work whether or not the email exists
 * (an unknown email also uses up its bucket of attempts).
 */
export async function signIn(
  db: Db,
  limits: Parameters<typeof verifyAccountPassword>[0],
  input: { email: string; password: string },
) {
  const email = input.email.trim().toLowerCase();
  const user = await db.user.findUnique({
    where: { email },
    select: {
      id: true,
      passwordHash: true,
      memberships: { select: { organizationId: true }, orderBy: { createdAt: 'asc' }, take: 1 },
    },
  });
  const ok = await verifyAccountPassword(
    limits,
    email,
    input.password,
    user?.passwordHash ?? (await DUMMY_PASSWORD_HASH),
  );
  if (!user || !ok) throw new AppError('UNAUTHORIZED', 'Email or password is incorrect');
  const sessionToken = await createSession(db, user.id, user.memberships[0]?.organizationId ?? null);
  return { userId: user.id, sessionToken };
}
