export type TokenState = 'active' | 'revoked' | 'expired';

/** A token is unusable once revoked or past its expiry. */
export function tokenState(
  token: { revokedAt: string | null; expiresAt: string | null },
  now = Date.now(),
): TokenState {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && new Date(token.expiresAt).getTime() <= now) return 'expired';
  return 'active';
}
