import { createHash } from 'node:crypto';
import type { Auth0Config } from '@shared/integrations';
import { isSuccessStatus, type HttpClient, type HttpResponse } from '../runtime/http-client';
import {
  deleteThenConfirmGone,
  deletionFailure,
  str,
  testWith,
  vendorMessage,
  waitFor,
  type VendorStyle,
} from '../saas';
import { PermanentError, TransientError, type Driver, type DriverContext, type Exchange, type Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';

/** Auth0 errors: `{statusCode, error, message, errorCode}`; 429 carries x-ratelimit-reset (epoch seconds). */
const style: VendorStyle = {
  vendor: 'Auth0',
  message: (body) => {
    const b = body as { message?: unknown; error_description?: unknown; error?: unknown } | undefined;
    return str(b?.message) ?? str(b?.error_description) ?? str(b?.error);
  },
};

/** The token endpoint's 429: the deletion waits until x-ratelimit-reset, as for any other 429, without using an attempt. */
class TokenRateLimited extends TransientError {
  constructor(readonly response: HttpResponse) {
    super(`Auth0 token endpoint rate limit: ${vendorMessage(style, response)}`, waitFor(style, response, Date.now()));
  }
}

/** Management API tokens by tenant and client, reused until a minute before they expire. */
const tokens = new Map<string, { token: string; expiresAt: number }>();

/** Auth0 Management API v2 with a machine-to-machine application (client credentials grant). */
export function auth0Client(
  http: HttpClient,
  config: Auth0Config,
  credentials: { clientId: string; clientSecret: string },
  trail?: Exchange[],
) {
  const origin = config.baseUrl ?? `https://${config.domain}`;
  const audience = `https://${config.domain}/api/v2/`;
  const cacheKey = createHash('sha256')
    .update(`${origin}\n${audience}\n${credentials.clientId}\n${credentials.clientSecret}`)
    .digest('hex');

  async function token(): Promise<string> {
    const cached = tokens.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      audience,
      client_secret: credentials.clientSecret,
    });
    const response = await http.request({
      method: 'POST',
      url: `${origin}/oauth/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    });
    // The granted access token is a credential: it stays out of the recorded trail.
    const recorded = trail?.findLast((e) => e.kind === 'http' && e.request.url.endsWith('/oauth/token'));
    if (recorded?.kind === 'http' && recorded.response && isSuccessStatus(response.status))
      recorded.response.body = '[access token withheld]';
    if (response.status === 401 || response.status === 403) {
      const said = style.message(jsonBody(response)) ?? '';
      // The Management API is known by the tenant's own domain: a custom (login) domain names no API.
      const hint = /service not found/i.test(said)
        ? `; the domain must be the tenant's own (such as acme.eu.auth0.com), not a custom domain`
        : '';
      throw new PermanentError(`Auth0 refused the client credentials: HTTP ${response.status}: ${said}`.trim() + hint);
    }
    if (response.status === 429) throw new TokenRateLimited(response);
    if (!isSuccessStatus(response.status))
      throw new TransientError(`Auth0 token endpoint answered HTTP ${response.status}`);
    const granted = jsonBody(response) as { access_token?: unknown; expires_in?: unknown } | undefined;
    const accessToken = str(granted?.access_token);
    if (!accessToken) throw new TransientError('Auth0 granted no access_token');
    const ttl = typeof granted?.expires_in === 'number' ? granted.expires_in : 3600;
    tokens.set(cacheKey, { token: accessToken, expiresAt: Date.now() + Math.max(0, ttl - 60) * 1000 });
    return accessToken;
  }

  const api = async (method: string, path: string): Promise<HttpResponse> => {
    const headers = { authorization: `Bearer ${await token()}`, accept: 'application/json' };
    const response = await http.request({ method, url: `${origin}/api/v2${path}`, headers });
    if (response.status === 401) tokens.delete(cacheKey);
    return response;
  };
  return {
    usersByEmail: (email: string) => api('GET', `/users-by-email?${new URLSearchParams({ email })}`),
    getUser: (id: string) => api('GET', `/users/${encodeURIComponent(id)}`),
    deleteUser: (id: string) => api('DELETE', `/users/${encodeURIComponent(id)}`),
    listOne: () => api('GET', '/users?per_page=1'),
  };
}

const clientFor = (ctx: Pick<DriverContext<Auth0Config>, 'http' | 'config' | 'secrets'> & { trail?: Exchange[] }) =>
  auth0Client(
    ctx.http,
    ctx.config,
    { clientId: credential(ctx, 'apiKey'), clientSecret: credential(ctx, 'secretKey') },
    ctx.trail,
  );

/** Finds the users, deletes each, and fetches each again. */
async function deleteUsers(ctx: DriverContext<Auth0Config>): Promise<Outcome> {
  const client = clientFor(ctx);
  let ids: string[];
  if (ctx.config.identifierType === 'email') {
    // Auth0's lookup is exact and case-sensitive, and Auth0 stores database users' emails in
    // lower case: the email as given, and in lower case.
    ids = [];
    for (const email of new Set([ctx.identifier, ctx.identifier.toLowerCase()])) {
      const found = await client.usersByEmail(email);
      if (!isSuccessStatus(found.status)) return deletionFailure(style, found, ctx.now);
      const users = jsonBody(found);
      for (const u of Array.isArray(users) ? users : []) {
        const id = str((u as { user_id?: unknown }).user_id);
        if (id && !ids.includes(id)) ids.push(id);
      }
    }
  } else {
    // A user id Auth0 does not know is nothing to delete; any other failure is reported as it is.
    const existing = await client.getUser(ctx.identifier);
    if (existing.status !== 404 && !isSuccessStatus(existing.status)) return deletionFailure(style, existing, ctx.now);
    ids = existing.status === 404 ? [] : [ctx.identifier];
  }
  const result = await deleteThenConfirmGone(style, ctx.now, ids, {
    del: client.deleteUser,
    get: client.getUser,
    noun: 'user',
  });
  if ('outcome' in result) return result.outcome;
  const { deleted } = result;
  if (deleted.length === 0)
    return { kind: 'success', message: 'Auth0 has no such user: nothing to delete', evidence: { usersFound: 0 } };
  return {
    kind: 'success',
    message: `Deleted ${deleted.length} Auth0 user(s); fetching each now answers 404`,
    evidence: {
      usersFound: deleted.length,
      userIds: deleted,
      verifiedGone: true,
      lookupAfterDelete: 'HTTP 404 inexistent_user',
    },
  };
}

/**
 * Synchronous: find the users (every user with the email, one per connection, or the user id),
 * delete each, then fetch each again: Auth0's 404 `inexistent_user` is the proof.
 */
export const auth0Driver: Driver<Auth0Config> = {
  type: 'AUTH0',
  async: false,
  canCancel: () => false,
  expectedCompletion: 'seconds',

  async requestDeletion(ctx) {
    try {
      return await deleteUsers(ctx);
    } catch (error) {
      if (error instanceof TokenRateLimited) return deletionFailure(style, error.response, ctx.now);
      throw error;
    }
  },

  testConnection: (ctx) =>
    testWith(style, () => clientFor(ctx).listOne(), 'Auth0 granted a Management API token that may read users'),
};
