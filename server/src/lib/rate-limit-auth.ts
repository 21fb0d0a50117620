import { AppError } from './errors';
import { clientAddressKey, rateLimitersFor } from './rate-limit';

type AuthLimitSettings = Parameters<typeof rateLimitersFor>[0];

/**
 * Counts one sign-in, sign-up or invitation attempt against the client address and refuses
 * it with 429 and Retry-After when the address has used up its attempts. Per process, like
 * every limiter here. The per-account limit is taken where a password is checked
 * (`verifyAccountPassword`), so every flow that checks one shares it.
 */
export function assertAuthAttemptAllowed(config: AuthLimitSettings, ip: string): void {
  const byIp = rateLimitersFor(config).signInPerIp.take(clientAddressKey(ip));
  if (!byIp.allowed) {
    throw new AppError('TOO_MANY_REQUESTS', 'Too many attempts from this address; try again later', {
      retryAfterSeconds: byIp.retryAfterSeconds,
    });
  }
}
