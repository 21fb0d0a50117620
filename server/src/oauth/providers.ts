import {
  GOOGLE_ANALYTICS_SCOPE,
  OAUTH_PROVIDER_BY_TYPE,
  OAUTH_PROVIDERS,
  type OAuthProviderId,
} from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import type { Config } from '../config';
import { AppError } from '../lib/errors';

/** An OAuth 2.0 provider with its client credentials from the environment. */
export interface OAuthProvider {
  id: OAuthProviderId;
  label: string;
  authorizeUrl: string;
  tokenUrl: string;
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  /** Extra authorization parameters (Google: offline access so a refresh token is issued). */
  authorizeParams: Record<string, string>;
  /** Environment variables that configure the client, for error messages. */
  envHint: string;
}

type ProviderConfig = Pick<
  Config,
  'GOOGLE_OAUTH_CLIENT_ID' | 'GOOGLE_OAUTH_CLIENT_SECRET' | 'GOOGLE_OAUTH_AUTHORIZE_URL' | 'GOOGLE_OAUTH_TOKEN_URL'
>;

export function oauthProvider(config: ProviderConfig, id: OAuthProviderId): OAuthProvider {
  switch (id) {
    case 'google':
      return {
        id,
        label: 'Google',
        authorizeUrl: config.GOOGLE_OAUTH_AUTHORIZE_URL,
        tokenUrl: config.GOOGLE_OAUTH_TOKEN_URL,
        clientId: config.GOOGLE_OAUTH_CLIENT_ID,
        clientSecret: config.GOOGLE_OAUTH_CLIENT_SECRET,
        scopes: [GOOGLE_ANALYTICS_SCOPE],
        authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
        envHint: 'GOOGLE_OAUTH_CLIENT_ID and GOOGLE_OAUTH_CLIENT_SECRET',
      };
  }
}

export const isConfigured = (provider: OAuthProvider) => Boolean(provider.clientId && provider.clientSecret);

/** The provider of an integration type's OAUTH accounts, or null when it has no OAuth flow. */
export function providerForType(config: ProviderConfig, type: IntegrationType): OAuthProvider | null {
  const id = OAUTH_PROVIDER_BY_TYPE[type];
  return id ? oauthProvider(config, id) : null;
}

export function requireConfigured(provider: OAuthProvider): Required<OAuthProvider> {
  if (!isConfigured(provider))
    throw new AppError(
      'BAD_REQUEST',
      `${provider.label} OAuth is not configured on this server: set ${provider.envHint}`,
    );
  return provider as Required<OAuthProvider>;
}

/** Where the provider sends the browser back: registered with the provider as the redirect URI. */
export const redirectUri = (config: Pick<Config, 'PUBLIC_URL'>, id: OAuthProviderId) =>
  `${config.PUBLIC_URL.replace(/\/+$/, '')}/oauth/callback/${id}`;

/** Every provider, whether it is configured and which integration types it serves, for the dashboard. */
export function listOAuthProviders(config: ProviderConfig & Pick<Config, 'PUBLIC_URL'>) {
  return OAUTH_PROVIDERS.map((id) => {
    const provider = oauthProvider(config, id);
    return {
      id,
      label: provider.label,
      configured: isConfigured(provider),
      integrationTypes: Object.entries(OAUTH_PROVIDER_BY_TYPE)
        .filter(([, p]) => p === id)
        .map(([type]) => type as IntegrationType),
      redirectUri: redirectUri(config, id),
    };
  });
}
