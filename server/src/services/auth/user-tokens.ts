import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { AppError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Logger } from '../../lib/logger';
import { hashPassword } from '../../lib/passwords';
import { hashToken, randomSecret } from '../../lib/tokens';
import { recordAudit } from '../audit/record-audit';
import { mailerFor } from '../notifications/mailer';

export type UserTokenPurpose = 'password_reset' | 'email_verification';

/** At most this many links of one purpose are mailed to one user per hour (the rest are silently not sent). */
const TOKENS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;
const INVALID_LINK = 'This link is invalid, was already used, or has expired; ask for a new one';

interface MailDeps {
  prisma: Db;
  config: Config;
  log: Logger;
}

/**
 * Creates a single-use token for `userId` and mails its link. Only the token's hash is
 * stored. The link carries the token in the fragment (#token=…), which browsers never send
 * to a server, so it stays out of access logs and Referer headers.
 */
async function issueToken(
  deps: MailDeps,
  user: { id: string; email: string },
  purpose: UserTokenPurpose,
  ttlMs: number,
  now: Date,
) {
  const recent = await deps.prisma.userToken.count({
    where: { userId: user.id, purpose, createdAt: { gt: new Date(now.getTime() - HOUR_MS) } },
  });
  if (recent >= TOKENS_PER_HOUR) {
    deps.log.warn({ userId: user.id, purpose }, 'user token not sent: hourly limit reached');
    return;
  }
  const token = randomSecret();
  await deps.prisma.$transaction([
    // A new link replaces the earlier unused ones.
    deps.prisma.userToken.updateMany({ where: { userId: user.id, purpose, usedAt: null }, data: { usedAt: now } }),
    deps.prisma.userToken.create({
      data: {
        id: newId('utk'),
        userId: user.id,
        purpose,
        tokenHash: hashToken(token),
        expiresAt: new Date(now.getTime() + ttlMs),
        createdAt: now,
      },
    }),
  ]);
  const page = purpose === 'password_reset' ? '/reset-password' : '/verify-email';
  const link = `${new URL(page, deps.config.PUBLIC_URL)}#token=${token}`;
  const text =
    purpose === 'password_reset'
      ? `Someone asked to reset the password of your account. If it was you, choose a new password here (the link works once, for ${Math.round(ttlMs / 60_000)} minutes):\n\n${link}\n\nIf it was not you, ignore this email; your password stays as it is.`
      : `Confirm your email address for the Data Deletion Service (the link works once, for ${Math.round(ttlMs / HOUR_MS)} hours):\n\n${link}`;
  const mailer = mailerFor(deps.config);
  // Not awaited by the caller's answer: the response must not reveal whether an account exists.
  mailer
    .send({
      to: user.email,
      subject: purpose === 'password_reset' ? 'Reset your password' : 'Confirm your email address',
      text,
    })
    .catch((error: Error) =>
      deps.log.warn({ userId: user.id, purpose, err: error.message }, 'could not send the email'),
    );
}

/**
 * "Forgot password": the same answer whether or not the email has an account. With email off
 * (no SMTP_HOST) nothing can be sent; `emailEnabled` in auth.capabilities lets the dashboard say so.
 */
export async function requestPasswordReset(deps: MailDeps, email: string, now = new Date()): Promise<{ ok: true }> {
  const user = await deps.prisma.user.findUnique({
    where: { email: email.trim().toLowerCase() },
    select: { id: true, email: true },
  });
  if (user && mailerFor(deps.config).enabled)
    await issueToken(deps, user, 'password_reset', deps.config.PASSWORD_RESET_TTL_MINUTES * 60_000, now);
  return { ok: true };
}

/** Marks the token used (once: a concurrent second use finds it used) and returns its user. */
async function consumeToken(db: Db, token: string, purpose: UserTokenPurpose, now: Date): Promise<string> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError('BAD_REQUEST', INVALID_LINK);
  const row = await db.userToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, userId: true, purpose: true },
  });
  if (!row || row.purpose !== purpose) throw new AppError('BAD_REQUEST', INVALID_LINK);
  const { count } = await db.userToken.updateMany({
    where: { id: row.id, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (count !== 1) throw new AppError('BAD_REQUEST', INVALID_LINK);
  return row.userId;
}

/** Sets the new password, and signs the user out everywhere (every session was made with the old one). */
export async function resetPassword(deps: MailDeps, input: { token: string; password: string }, now = new Date()) {
  const passwordHash = await hashPassword(input.password);
  return deps.prisma.$transaction(async (tx) => {
    const userId = await consumeToken(tx as Db, input.token, 'password_reset', now);
    // Following a mailed link proves the address too.
    const user = await tx.user.update({
      where: { id: userId },
      data: { passwordHash, emailVerifiedAt: now },
      select: { id: true, memberships: { select: { organizationId: true } } },
    });
    await tx.session.deleteMany({ where: { userId } });
    for (const m of user.memberships) {
      await recordAudit(tx, null, {
        organizationId: m.organizationId,
        action: 'user.password_reset',
        summary: 'Password reset through an emailed link; every session signed out',
        details: { userId },
      });
    }
    return { ok: true as const };
  });
}

export async function sendEmailVerification(
  deps: MailDeps,
  userId: string,
  now = new Date(),
): Promise<{ sent: boolean }> {
  const user = await deps.prisma.user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, emailVerifiedAt: true },
  });
  if (!user || user.emailVerifiedAt || !mailerFor(deps.config).enabled) return { sent: false };
  await issueToken(deps, user, 'email_verification', deps.config.EMAIL_VERIFICATION_TTL_HOURS * HOUR_MS, now);
  return { sent: true };
}

export async function verifyEmail(deps: MailDeps, token: string, now = new Date()) {
  return deps.prisma.$transaction(async (tx) => {
    const userId = await consumeToken(tx as Db, token, 'email_verification', now);
    await tx.user.update({ where: { id: userId }, data: { emailVerifiedAt: now } });
    return { ok: true as const };
  });
}
