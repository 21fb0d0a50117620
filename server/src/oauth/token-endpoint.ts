import type { OAuthProvider } from './providers';

/** Tokens as an OAuth 2.0 token endpoint returns them (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
}

/** The token endpoint refused the grant (RFC 6749 section 5.2): `invalid_grant` means revoked or expired. */
export class OAuthGrantError extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(`${error}${description ? `: ${description}` : ''}`);
  }
}

/** Network problems and 5xx: worth trying again later. */
export class OAuthUnavailableError extends Error {}

/** POSTs a grant to the provider's token endpoint with the client credentials (client_secret_post). */
export async function requestTokens(
  provider: Required<OAuthProvider>,
  grant: Record<string, string>,
): Promise<TokenResponse> {
  let response: Response;
  try {
    response = await fetch(provider.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        ...grant,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
      }).toString(),
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
  } catch (error) {
    throw new OAuthUnavailableError(`${provider.label} token endpoint unreachable: ${(error as Error).message}`);
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  if (response.status >= 500 || response.status === 429)
    throw new OAuthUnavailableError(`${provider.label} token endpoint answered HTTP ${response.status}`);
  if (!response.ok || typeof body.access_token !== 'string') {
    const error = typeof body.error === 'string' ? body.error : `http_${response.status}`;
    throw new OAuthGrantError(error, typeof body.error_description === 'string' ? body.error_description : undefined);
  }
  return body as unknown as TokenResponse;
}

/** Our OAUTH account secrets from a token response (keeping the refresh token when none is re-issued). */
export function secretsFromTokens(
  tokens: TokenResponse,
  now: Date,
  previous: Record<string, unknown> = {},
): Record<string, unknown> {
  const secrets: Record<string, unknown> = { ...previous, accessToken: tokens.access_token };
  if (tokens.refresh_token) secrets.refreshToken = tokens.refresh_token;
  if (typeof tokens.expires_in === 'number')
    secrets.expiresAt = new Date(now.getTime() + tokens.expires_in * 1000).toISOString();
  else delete secrets.expiresAt;
  if (tokens.scope) secrets.scope = tokens.scope;
  return secrets;
}
