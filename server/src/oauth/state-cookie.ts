import { createHash, randomBytes } from 'node:crypto';
import type { OAuthProviderId } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { decryptSecret, encryptSecret, safeEqual, type Keyring } from '../lib/crypto';

/** Holds one pending authorization (state + PKCE verifier) between the start and the callback. */
export const OAUTH_STATE_COOKIE = 'dds_oauth';
export const OAUTH_STATE_TTL_SECONDS = 600;
const CONTEXT = 'oauth-state:v1';

export interface PendingAuthorization {
  state: string;
  codeVerifier: string;
  provider: OAuthProviderId;
  integrationType: IntegrationType;
  accountName?: string;
  accountId?: string;
  returnTo: string;
  userId: string;
  organizationId: string;
  expiresAt: number;
}

/** A random state and a PKCE S256 verifier/challenge pair (RFC 7636). */
export function newAuthorizationSecrets() {
  const codeVerifier = randomBytes(48).toString('base64url');
  return {
    state: randomBytes(24).toString('base64url'),
    codeVerifier,
    codeChallenge: createHash('sha256').update(codeVerifier).digest('base64url'),
  };
}

/** Encrypted and authenticated (AES-GCM with the service key): the browser can neither read nor forge it. */
export function sealPendingAuthorization(keyring: Keyring, pending: PendingAuthorization): string {
  return encryptSecret(keyring, JSON.stringify(pending), CONTEXT);
}

/** The pending authorization the callback's `state` belongs to, or an explanation of why there is none. */
export function openPendingAuthorization(
  keyring: Keyring,
  sealed: string | undefined,
  state: string | undefined,
  provider: string,
  now = Date.now(),
): PendingAuthorization | string {
  if (!sealed)
    return 'No sign-in with the provider is in progress in this browser (or it took longer than 10 minutes); start again';
  let pending: PendingAuthorization;
  try {
    pending = JSON.parse(decryptSecret(keyring, sealed, CONTEXT)) as PendingAuthorization;
  } catch {
    return 'The sign-in state could not be read; start again';
  }
  if (pending.expiresAt < now) return 'The sign-in with the provider took longer than 10 minutes; start again';
  if (pending.provider !== provider || !state || !safeEqual(pending.state, state))
    return 'The answer from the provider does not match the sign-in started in this browser; start again';
  return pending;
}
