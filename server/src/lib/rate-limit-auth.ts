import { AppError } from './errors';
import { clientAddressKey, rateLimitersFor } from './rate-limit';

type AuthLimitSettings = Parameters<typeof rateLimitersFor>[0];

/**
 * Counts one sign-in (email given) or sign-up attempt and refuses it with 429 and
 * Retry-After when the address or the account email has used up its attempts. Per
 * process, like every limiter here; the email bucket stops slow guessing against one
 * account from many addresses.
 */
export function assertAuthAttemptAllowed(config: AuthLimitSettings, ip: string, email?: string): void {
  const limiters = rateLimitersFor(config);
  const byIp = limiters.signInPerIp.take(clientAddressKey(ip));
  if (!byIp.allowed) {
    throw new AppError('TOO_MANY_REQUESTS', 'Too many attempts from this address; try again later', { retryAfterSeconds: byIp.retryAfterSeconds });
  }
  if (email === undefined) return;
  const byEmail = limiters.signInPerEmail.take(email.trim().toLowerCase());
  if (!byEmail.allowed) {
    throw new AppError('TOO_MANY_REQUESTS', 'Too many sign-in attempts for this account; try again later', { retryAfterSeconds: byEmail.retryAfterSeconds });
  }
}
