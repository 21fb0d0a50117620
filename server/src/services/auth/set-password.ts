import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { hashPassword } from '../../lib/passwords';
import { recordAudit } from '../audit/record-audit';

/**
 * Sets a user's password by hand (`npm run cli -- user:reset-password`), for a server that
 * cannot mail a reset link: every session is signed out, as after a reset by link, and each of
 * the user's organizations records it. The password is checked by the caller (passwordSchema).
 */
export async function setUserPassword(db: Db, input: { email: string; password: string }) {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.findUnique({
      where: { email },
      select: { id: true, memberships: { select: { organizationId: true } } },
    });
    if (!user) throw new AppError('NOT_FOUND', 'No user has this email');
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    const { count } = await tx.session.deleteMany({ where: { userId: user.id } });
    for (const m of user.memberships) {
      await recordAudit(tx, null, {
        organizationId: m.organizationId,
        action: 'user.password_reset',
        summary: 'Password set from the command line; every session signed out',
        details: { userId: user.id },
      });
    }
    return { email, passwordChanged: true as const, sessionsSignedOut: count };
  });
}
