import { createHash, randomBytes } from 'node:crypto';
import { bearerOf, jsonOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface GoogleFakeState {
  clientId: string;
  clientSecret: string;
  /** GA4 property ids the granted user can administer. */
  properties: Set<string>;
  /** Issued authorization codes, bound to the PKCE challenge and redirect URI. */
  codes: Map<string, { challenge: string; redirectUri: string; scope: string; used: boolean }>;
  /** Access tokens and when they expire. */
  accessTokens: Map<string, number>;
  refreshTokens: Set<string>;
  /** Access tokens are issued for this many seconds. */
  accessTokenTtlSeconds: number;
  /** Scope granted at consent (a user can untick it). */
  grantedScope: string;
  deletions: { propertyId: string; user: Record<string, string>; at: string }[];
  refreshes: number;
}

const UNION = ['userId', 'clientId', 'appInstanceId', 'userProvidedData'];
const googleError = (code: number, status: string, message: string) => ({
  status: code,
  body: { error: { code, message, status } },
});

/**
 * Google's OAuth 2.0 endpoints (authorization with PKCE S256, token with authorization_code
 * and refresh_token grants, invalid_grant for revoked refresh tokens) and the GA4 Admin API
 * `properties/{id}:submitUserDeletion` (one of userId | clientId | appInstanceId |
 * userProvidedData; answers deletionRequestTime), with Bearer access tokens that expire.
 */
export async function startGoogleFake(options: { accessTokenTtlSeconds?: number } = {}): Promise<
  FakeVendor<GoogleFakeState> & {
    issueTokens(): { accessToken: string; refreshToken: string };
    revokeRefreshToken(token: string): void;
  }
> {
  const state: GoogleFakeState = {
    clientId: 'fake-client-id.apps.googleusercontent.com',
    clientSecret: 'fake-client-secret',
    properties: new Set(),
    codes: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Set(),
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3599,
    grantedScope: 'https://www.googleapis.com/auth/analytics.edit',
    deletions: [],
    refreshes: 0,
  };
  const newAccessToken = () => {
    const token = `ya29.${randomBytes(16).toString('base64url')}`;
    state.accessTokens.set(token, Date.now() + state.accessTokenTtlSeconds * 1000);
    return token;
  };
  const tokenError = (error: string, description: string) => ({
    status: 400,
    body: { error, error_description: description },
  });
  const server = await startFakeServer((call) => {
    if (call.path === '/o/oauth2/v2/auth' && call.method === 'GET') {
      const q = call.query;
      if (q.get('client_id') !== state.clientId) return { status: 401, body: 'invalid_client' };
      const redirect = q.get('redirect_uri');
      if (
        !redirect ||
        q.get('response_type') !== 'code' ||
        q.get('code_challenge_method') !== 'S256' ||
        !q.get('code_challenge') ||
        !q.get('state')
      )
        return { status: 400, body: 'invalid_request' };
      // The consent screen is skipped: the user grants at once.
      const code = `4/${randomBytes(12).toString('base64url')}`;
      state.codes.set(code, {
        challenge: q.get('code_challenge')!,
        redirectUri: redirect,
        scope: state.grantedScope,
        used: false,
      });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      back.searchParams.set('scope', state.grantedScope);
      return { status: 302, headers: { location: back.toString() } };
    }
    if (call.path === '/token' && call.method === 'POST') {
      if (!String(call.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return tokenError('invalid_request', 'Form-encoded body required');
      const form = new URLSearchParams(call.body);
      if (form.get('client_id') !== state.clientId || form.get('client_secret') !== state.clientSecret)
        return { status: 401, body: { error: 'invalid_client', error_description: 'The OAuth client was not found.' } };
      if (form.get('grant_type') === 'authorization_code') {
        const code = state.codes.get(form.get('code') ?? '');
        if (!code || code.used) return tokenError('invalid_grant', 'Malformed auth code.');
        code.used = true;
        if (code.redirectUri !== form.get('redirect_uri')) return tokenError('redirect_uri_mismatch', 'Bad Request');
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge)
          return tokenError('invalid_grant', 'Invalid code verifier.');
        const refreshToken = `1//${randomBytes(16).toString('base64url')}`;
        state.refreshTokens.add(refreshToken);
        return {
          status: 200,
          body: {
            access_token: newAccessToken(),
            expires_in: state.accessTokenTtlSeconds,
            refresh_token: refreshToken,
            scope: code.scope,
            token_type: 'Bearer',
          },
        };
      }
      if (form.get('grant_type') === 'refresh_token') {
        if (!state.refreshTokens.has(form.get('refresh_token') ?? ''))
          return tokenError('invalid_grant', 'Token has been expired or revoked.');
        state.refreshes++;
        return {
          status: 200,
          body: {
            access_token: newAccessToken(),
            expires_in: state.accessTokenTtlSeconds,
            scope: state.grantedScope,
            token_type: 'Bearer',
          },
        };
      }
      return tokenError('unsupported_grant_type', 'Invalid grant_type');
    }
    const token = bearerOf(call);
    const expiresAt = token ? state.accessTokens.get(token) : undefined;
    if (!expiresAt || expiresAt < Date.now()) {
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    }
    const deletion = /^\/v1alpha\/properties\/([^/:]+):submitUserDeletion$/.exec(call.path);
    if (deletion && call.method === 'POST') {
      if (!state.properties.has(deletion[1]!))
        return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      const body = jsonOf(call) as Record<string, unknown> | undefined;
      const fields = Object.keys(body ?? {}).filter((k) => UNION.includes(k));
      if (!body || fields.length !== 1 || typeof body[fields[0]!] !== 'string' || !body[fields[0]!]) {
        return googleError(
          400,
          'INVALID_ARGUMENT',
          'Exactly one of userId, clientId, appInstanceId or userProvidedData must be set.',
        );
      }
      const at = new Date().toISOString();
      state.deletions.push({ propertyId: deletion[1]!, user: { [fields[0]!]: body[fields[0]!] as string }, at });
      return { status: 200, body: { deletionRequestTime: at } };
    }
    const property = /^\/v1beta\/properties\/([^/:]+)$/.exec(call.path);
    if (property && call.method === 'GET') {
      if (!state.properties.has(property[1]!))
        return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
      return { status: 200, body: { name: `properties/${property[1]}`, displayName: 'Fake property' } };
    }
    return googleError(404, 'NOT_FOUND', 'Requested entity was not found.');
  });
  return {
    ...server,
    state,
    /** Tokens as if the user had consented earlier. */
    issueTokens() {
      const refreshToken = `1//${randomBytes(16).toString('base64url')}`;
      state.refreshTokens.add(refreshToken);
      return { accessToken: newAccessToken(), refreshToken };
    },
    /** The user removed the app's access at myaccount.google.com: refresh answers invalid_grant. */
    revokeRefreshToken(token: string) {
      state.refreshTokens.delete(token);
    },
  };
}

/** Environment for pointing the server's Google OAuth client at this fake. */
export function googleOAuthEnv(fake: { url: string; state: GoogleFakeState }): Record<string, string> {
  return {
    GOOGLE_OAUTH_CLIENT_ID: fake.state.clientId,
    GOOGLE_OAUTH_CLIENT_SECRET: fake.state.clientSecret,
    GOOGLE_OAUTH_AUTHORIZE_URL: `${fake.url}/o/oauth2/v2/auth`,
    GOOGLE_OAUTH_TOKEN_URL: `${fake.url}/token`,
  };
}
