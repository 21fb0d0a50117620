import { AppError } from '../../lib/errors';
import { verifyPassword } from '../../lib/passwords';
import { rateLimitersFor } from '../../lib/rate-limit';

type AccountLimitSettings = Parameters<typeof rateLimitersFor>[0];

/**
 * The one place a user's password is checked. Every check first takes a token from the
 * account's own bucket (per email, shared by every flow that checks a password), so no
 * screen offers a way around the per-account limit.
 */
export async function verifyAccountPassword(
  limits: AccountLimitSettings,
  email: string,
  password: string,
  passwordHash: string,
): Promise<boolean> {
  const byAccount = rateLimitersFor(limits).signInPerEmail.take(email.trim().toLowerCase());
  if (!byAccount.allowed) {
    throw new AppError('TOO_MANY_REQUESTS', 'Too many sign-in attempts for this account; try again later', {
      retryAfterSeconds: byAccount.retryAfterSeconds,
    });
  }
  return verifyPassword(password, passwordHash);
}
