import type { StartOAuthInput } from '@shared/integrations';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { hasRole } from '../auth/actor';
import { createAccount, updateAccount, type AccountDeps } from './accounts';
import { loadAccountSecrets } from './secrets';
import type { ServiceDeps } from '../deps';
import { providerForType, redirectUri, requireConfigured, oauthProvider } from '../../oauth/providers';
import {
  newAuthorizationSecrets,
  OAUTH_STATE_COOKIE,
  OAUTH_STATE_TTL_SECONDS,
  openPendingAuthorization,
  sealPendingAuthorization,
} from '../../oauth/state-cookie';
import { OAuthGrantError, OAuthUnavailableError, requestTokens, secretsFromTokens } from '../../oauth/token-endpoint';

/**
 * Starts connecting an OAUTH account: remembers state and the PKCE verifier in an encrypted,
 * short-lived cookie and returns the provider's authorization URL for the browser to open.
 */
export async function startOAuthConnection(
  ctx: Pick<ServiceDeps, 'prisma' | 'keyring' | 'config'> & {
    setCookie(name: string, value: string, options?: { maxAgeSeconds?: number }): void;
  },
  actor: Actor,
  input: StartOAuthInput,
) {
  // Another organization's account is "not found" whatever else is wrong with the call.
  if (input.accountId) {
    const account = await ctx.prisma.account.findFirst({
      where: { id: input.accountId, organizationId: actor.organizationId },
      select: { type: true, integrationType: true },
    });
    if (!account) throw new AppError('NOT_FOUND', 'Account not found');
    if (account.type !== 'OAUTH' || account.integrationType !== input.integrationType)
      throw new AppError('BAD_REQUEST', `That account is not an OAuth account for ${input.integrationType}`);
  }
  const found = providerForType(ctx.config, input.integrationType);
  if (!found)
    throw new AppError(
      'BAD_REQUEST',
      `${input.integrationType} accounts are not connected through OAuth; paste the token instead`,
    );
  const provider = requireConfigured(found);
  const secrets = newAuthorizationSecrets();
  ctx.setCookie(
    OAUTH_STATE_COOKIE,
    sealPendingAuthorization(ctx.keyring, {
      state: secrets.state,
      codeVerifier: secrets.codeVerifier,
      provider: provider.id,
      integrationType: input.integrationType,
      accountName: input.accountName,
      accountId: input.accountId,
      returnTo: input.returnTo ?? '/',
      userId: actor.userId,
      organizationId: actor.organizationId,
      expiresAt: Date.now() + OAUTH_STATE_TTL_SECONDS * 1000,
    }),
    { maxAgeSeconds: OAUTH_STATE_TTL_SECONDS },
  );
  const url = new URL(provider.authorizeUrl);
  const params = {
    response_type: 'code',
    client_id: provider.clientId,
    redirect_uri: redirectUri(ctx.config, provider.id),
    scope: provider.scopes.join(' '),
    state: secrets.state,
    code_challenge: secrets.codeChallenge,
    code_challenge_method: 'S256',
    ...provider.authorizeParams,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return { authorizationUrl: url.toString(), provider: provider.id, redirectUri: params.redirect_uri };
}

export interface CallbackInput {
  provider: string;
  cookie: string | undefined;
  query: { code?: string; state?: string; error?: string; error_description?: string };
}

/** Where the browser goes after the callback, and what happened. */
export interface CallbackResult {
  returnTo: string;
  ok: boolean;
  accountId?: string;
  message: string;
}

/**
 * The provider's redirect back: checks state against the cookie, exchanges the code with the
 * PKCE verifier, and stores the tokens encrypted as an OAUTH account (new, or reconnected).
 */
export async function completeOAuthConnection(deps: ServiceDeps, input: CallbackInput): Promise<CallbackResult> {
  const pending = openPendingAuthorization(deps.keyring, input.cookie, input.query.state, input.provider);
  if (typeof pending === 'string') return { returnTo: '/', ok: false, message: pending };
  const fail = (message: string): CallbackResult => ({ returnTo: pending.returnTo, ok: false, message });
  if (input.query.error)
    return fail(`The provider did not grant access: ${input.query.error_description ?? input.query.error}`);
  if (!input.query.code) return fail('The provider sent no authorization code');
  const membership = await deps.prisma.membership.findUnique({
    where: { userId_organizationId: { userId: pending.userId, organizationId: pending.organizationId } },
    select: { role: true },
  });
  if (!membership || !hasRole(membership, 'ADMIN')) return fail('Only admins of the organization can connect accounts');
  const actor: Actor = {
    userId: pending.userId,
    organizationId: pending.organizationId,
    role: membership.role,
    via: 'session',
  };
  let provider;
  try {
    provider = requireConfigured(oauthProvider(deps.config, pending.provider));
  } catch (error) {
    return fail((error as Error).message);
  }
  let tokens;
  try {
    tokens = await requestTokens(provider, {
      grant_type: 'authorization_code',
      code: input.query.code,
      redirect_uri: redirectUri(deps.config, provider.id),
      code_verifier: pending.codeVerifier,
    });
  } catch (error) {
    if (error instanceof OAuthGrantError || error instanceof OAuthUnavailableError)
      return fail(`${provider.label} refused the authorization code: ${error.message}`);
    throw error;
  }
  const granted = (tokens.scope ?? provider.scopes.join(' ')).split(/\s+/);
  const missing = provider.scopes.filter((s) => !granted.includes(s));
  if (missing.length)
    return fail(
      `Access was granted without the required permission (${missing.join(', ')}); connect again and allow it`,
    );
  const accountDeps: AccountDeps = deps;
  const now = new Date();
  if (pending.accountId) {
    // Google re-issues a refresh token only with prompt=consent; keep the old one otherwise.
    const previous = tokens.refresh_token
      ? {}
      : await loadAccountSecrets(deps, actor.organizationId, pending.accountId).catch(
          () => ({}) as Record<string, unknown>,
        );
    const secrets = secretsFromTokens(
      tokens,
      now,
      typeof previous.refreshToken === 'string' ? { refreshToken: previous.refreshToken } : {},
    );
    const account = await updateAccount(accountDeps, actor, { accountId: pending.accountId, secrets });
    return {
      returnTo: pending.returnTo,
      ok: true,
      accountId: account.id,
      message: `Account "${account.name}" reconnected`,
    };
  }
  const account = await createAccount(accountDeps, actor, {
    name: pending.accountName ?? `${provider.label} account`,
    integrationType: pending.integrationType,
    type: 'OAUTH',
    secrets: secretsFromTokens(tokens, now),
  });
  return {
    returnTo: pending.returnTo,
    ok: true,
    accountId: account.id,
    message: `Account "${account.name}" connected`,
  };
}
