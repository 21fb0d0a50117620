import { randomBytes } from 'node:crypto';
import { bearerOf, startFakeServer, type FakeVendor } from '../../test/fakes/vendor-server';

export interface Auth0User {
  user_id: string;
  email: string;
  email_verified: boolean;
  created_at: string;
  identities: { connection: string; provider: string; user_id: string; isSocial: boolean }[];
}

export interface Auth0FakeState {
  domain: string;
  /** client id -> client secret of machine-to-machine applications. */
  clients: Map<string, string>;
  /** Access tokens issued, with their expiry. */
  accessTokens: Map<string, number>;
  tokensIssued: number;
  users: Map<string, Auth0User>;
  throttleNext: number;
  /** Token requests to answer 429 (the Authentication API's own limit). */
  throttleTokenNext: number;
  resetInSeconds: number;
}

const auth0Error = (statusCode: number, error: string, message: string, errorCode?: string) => ({
  status: statusCode,
  body: { statusCode, error, message, ...(errorCode ? { errorCode } : {}) },
});

/**
 * Auth0: POST /oauth/token (client_credentials, form or JSON) → {access_token, expires_in,
 * token_type}; Management API v2: GET /api/v2/users-by-email?email=, GET/DELETE
 * /api/v2/users/{id} (204; 404 inexistent_user), GET /api/v2/users. Bearer token; 429 with
 * x-ratelimit-reset ("a UNIX timestamp of the expected time when the rate limit will reset"),
 * from the token endpoint as well.
 */
export async function startAuth0Fake(): Promise<
  FakeVendor<Auth0FakeState> & { addUser(email: string, connection?: string): Auth0User }
> {
  const state: Auth0FakeState = {
    domain: 'tenant.eu.auth0.com',
    clients: new Map(),
    accessTokens: new Map(),
    tokensIssued: 0,
    users: new Map(),
    throttleNext: 0,
    throttleTokenNext: 0,
    resetInSeconds: 4,
  };
  const server = await startFakeServer((call) => {
    if (call.path === '/oauth/token' && call.method === 'POST') {
      if (state.throttleTokenNext > 0) {
        state.throttleTokenNext--;
        return {
          status: 429,
          headers: {
            'x-ratelimit-limit': '30',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(Math.floor(call.at / 1000) + state.resetInSeconds),
          },
          body: { error: 'too_many_requests', error_description: 'Global limit has been reached' },
        };
      }
      const type = String(call.headers['content-type'] ?? '');
      const form = type.includes('json')
        ? new URLSearchParams(JSON.parse(call.body || '{}') as Record<string, string>)
        : new URLSearchParams(call.body);
      if (form.get('grant_type') !== 'client_credentials')
        return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' } };
      if (state.clients.get(form.get('client_id') ?? '') !== form.get('client_secret'))
        return { status: 401, body: { error: 'access_denied', error_description: 'Unauthorized' } };
      if (form.get('audience') !== `https://${state.domain}/api/v2/`)
        return {
          status: 403,
          body: { error: 'access_denied', error_description: `Service not found: ${form.get('audience')}` },
        };
      const token = randomBytes(16).toString('hex');
      state.accessTokens.set(token, call.at + 86_400_000);
      state.tokensIssued++;
      return {
        status: 200,
        body: { access_token: token, scope: 'read:users delete:users', expires_in: 86_400, token_type: 'Bearer' },
      };
    }
    const token = bearerOf(call);
    if (!token || (state.accessTokens.get(token) ?? 0) < call.at)
      return auth0Error(401, 'Unauthorized', 'Invalid token', 'invalid_token');
    if (state.throttleNext > 0) {
      state.throttleNext--;
      return {
        ...auth0Error(429, 'Too Many Requests', 'Global limit has been reached', 'too_many_requests'),
        headers: {
          'x-ratelimit-limit': '50',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(call.at / 1000) + state.resetInSeconds),
        },
      };
    }
    if (call.path === '/api/v2/users-by-email' && call.method === 'GET') {
      const email = call.query.get('email');
      if (!email)
        return auth0Error(
          400,
          'Bad Request',
          'Query validation error: Missing required property: email',
          'invalid_query_string',
        );
      // "an exact match to the provided email address and is case-sensitive" (users-by-email);
      // database users' emails are stored in lower case (addUser).
      return { status: 200, body: [...state.users.values()].filter((u) => u.email === email) };
    }
    if (call.path === '/api/v2/users' && call.method === 'GET')
      return { status: 200, body: [...state.users.values()].slice(0, Number(call.query.get('per_page') ?? 50)) };
    const one = /^\/api\/v2\/users\/([^/]+)$/.exec(call.path);
    if (one) {
      const user = state.users.get(decodeURIComponent(one[1]!));
      if (!user) return auth0Error(404, 'Not Found', 'The user does not exist.', 'inexistent_user');
      if (call.method === 'GET') return { status: 200, body: user };
      if (call.method === 'DELETE') {
        state.users.delete(user.user_id);
        return { status: 204 };
      }
    }
    return auth0Error(404, 'Not Found', 'Not Found');
  });
  return {
    ...server,
    state,
    addUser(email, connection = 'Username-Password-Authentication') {
      const id = randomBytes(12).toString('hex');
      const provider = connection === 'Username-Password-Authentication' ? 'auth0' : connection;
      const user: Auth0User = {
        user_id: `${provider}|${id}`,
        email: email.toLowerCase(),
        email_verified: true,
        created_at: new Date().toISOString(),
        identities: [{ connection, provider, user_id: id, isSocial: provider !== 'auth0' }],
      };
      state.users.set(user.user_id, user);
      return user;
    },
  };
}
