import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAccountSecrets } from '../services/accounts/secrets';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { googleOAuthEnv, startGoogleFake } from '../integrations/google-analytics/fake';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { OAUTH_STATE_COOKIE } from './state-cookie';

let env: TestEnv;
let google: Awaited<ReturnType<typeof startGoogleFake>>;
let server: Awaited<ReturnType<typeof startTestServer>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  google = await startGoogleFake();
  google.state.properties.add('555000111');
  env = await createTestEnv({ ...FAST_ENGINE_CONFIG, ...googleOAuthEnv(google) });
  server = await startTestServer(env.deps);
  worker = await startTestWorker(env);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await env?.close();
  await google?.close();
});

async function setup() {
  const org = await seedOrganization(env.deps);
  const { caller, ctx } = callerFor(env.deps, { pat: org.pat });
  return { org, caller, cookies: ctx.cookies };
}

/** What the browser does: open the provider's URL, follow its redirect to our callback with the cookie. */
async function consentAndReturn(
  authorizationUrl: string,
  cookie: string | undefined,
  tamper: (callback: URL) => void = () => {},
) {
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = new URL(consent.headers.get('location')!);
  expect(callback.pathname).toBe('/oauth/callback/google');
  tamper(callback);
  const response = await fetch(`${server.baseUrl}${callback.pathname}${callback.search}`, {
    redirect: 'manual',
    headers: cookie ? { cookie: `${OAUTH_STATE_COOKIE}=${encodeURIComponent(cookie)}` } : {},
  });
  expect(response.status).toBe(303);
  expect(response.headers.get('set-cookie')).toContain(`${OAUTH_STATE_COOKIE}=;`);
  return new URL(response.headers.get('location')!, server.baseUrl);
}

async function ga4Integration(
  caller: Awaited<ReturnType<typeof setup>>['caller'],
  workspaceId: string,
  accountId: string,
  name = 'GA4',
) {
  return caller.integrations.create({
    workspaceId,
    name,
    type: 'GOOGLE_ANALYTICS',
    accountId,
    config: { propertyId: '555000111', identifierType: 'clientId', baseUrl: google.url },
  });
}

/** An OAUTH account whose access token has expired (also at the fake). */
async function expiredAccount(caller: Awaited<ReturnType<typeof setup>>['caller']) {
  const tokens = google.issueTokens();
  google.state.accessTokens.set(tokens.accessToken, Date.now() - 1);
  const account = await caller.accounts.create({
    name: 'GA expired',
    integrationType: 'GOOGLE_ANALYTICS',
    type: 'OAUTH',
    secrets: {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: new Date(Date.now() - 5_000).toISOString(),
    },
  });
  return { account, tokens };
}

describe('OAuth accounts', () => {
  it('connects a Google account with the authorization-code flow (state + PKCE) and uses it for GA4 deletions', async () => {
    const { org, caller, cookies } = await setup();
    expect(await caller.accounts.oauthProviders()).toEqual([
      expect.objectContaining({
        id: 'google',
        configured: true,
        integrationTypes: ['GOOGLE_ANALYTICS'],
        redirectUri: 'http://localhost:3000/oauth/callback/google',
      }),
    ]);
    const started = await caller.accounts.connectOAuth({
      integrationType: 'GOOGLE_ANALYTICS',
      accountName: 'Marketing GA',
      returnTo: '/workspaces',
    });
    const authorize = new URL(started.authorizationUrl);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: google.state.clientId,
      redirect_uri: 'http://localhost:3000/oauth/callback/google',
      scope: 'https://www.googleapis.com/auth/analytics.edit',
      code_challenge_method: 'S256',
      access_type: 'offline',
    });
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const cookie = cookies[OAUTH_STATE_COOKIE];
    // The cookie is sealed: neither the state nor the verifier can be read from it.
    expect(cookie).not.toContain(authorize.searchParams.get('state'));

    const back = await consentAndReturn(started.authorizationUrl, cookie);
    expect(back.pathname).toBe('/workspaces');
    expect(back.searchParams.get('oauth')).toBe('connected');
    const accountId = back.searchParams.get('accountId')!;
    const account = await caller.accounts.get({ accountId });
    expect(account).toMatchObject({
      name: 'Marketing GA',
      type: 'OAUTH',
      integrationType: 'GOOGLE_ANALYTICS',
      secretHints: { scope: 'https://www.googleapis.com/auth/analytics.edit' },
    });
    const stored = await loadAccountSecrets(env.deps, org.organization.id, accountId);
    expect(stored).toMatchObject({
      accessToken: expect.stringMatching(/^ya29\./),
      refreshToken: expect.stringMatching(/^1\/\//),
    });
    const raw = await env.db.prisma.account.findUniqueOrThrow({ where: { id: accountId } });
    expect(raw.secretCipher).not.toContain(stored.accessToken as string);

    await ga4Integration(caller, org.workspace.id, accountId);
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: '1234567.8901234',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    expect(google.state.deletions.at(-1)).toMatchObject({
      propertyId: '555000111',
      user: { clientId: '1234567.8901234' },
    });
  });

  it('refuses a callback whose state does not match the flow started in this browser, or that has no cookie', async () => {
    const { caller, cookies } = await setup();
    const before = await env.db.prisma.account.count();
    const started = await caller.accounts.connectOAuth({ integrationType: 'GOOGLE_ANALYTICS', accountName: 'Forged' });
    const forged = await consentAndReturn(started.authorizationUrl, cookies[OAUTH_STATE_COOKIE], (callback) =>
      callback.searchParams.set('state', 'attacker-state'),
    );
    expect(forged.searchParams.get('oauth')).toBe('error');
    expect(forged.searchParams.get('message')).toContain('does not match');
    const noCookie = await consentAndReturn(
      (await caller.accounts.connectOAuth({ integrationType: 'GOOGLE_ANALYTICS', accountName: 'Lost' }))
        .authorizationUrl,
      undefined,
    );
    expect(noCookie.searchParams.get('message')).toContain('No sign-in with the provider is in progress');
    expect(await env.db.prisma.account.count()).toBe(before);
    await expect(caller.accounts.connectOAuth({ integrationType: 'SEGMENT', accountName: 'x' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it('reconnects an existing account in place', async () => {
    const { caller, cookies, org } = await setup();
    const { account, tokens } = await expiredAccount(caller);
    google.revokeRefreshToken(tokens.refreshToken);
    const started = await caller.accounts.connectOAuth({ integrationType: 'GOOGLE_ANALYTICS', accountId: account.id });
    const back = await consentAndReturn(started.authorizationUrl, cookies[OAUTH_STATE_COOKIE]);
    expect(back.searchParams.get('accountId')).toBe(account.id);
    const stored = await loadAccountSecrets(env.deps, org.organization.id, account.id);
    expect(stored.refreshToken).not.toBe(tokens.refreshToken);
    expect(Date.parse(stored.expiresAt as string)).toBeGreaterThan(Date.now());
  });

  it('refreshes an expired access token once before the call, even for concurrent deletions, and stores it', async () => {
    const { org, caller } = await setup();
    const { account, tokens } = await expiredAccount(caller);
    await ga4Integration(caller, org.workspace.id, account.id, 'GA4 web');
    await ga4Integration(caller, org.workspace.id, account.id, 'GA4 app');
    const refreshesBefore = google.state.refreshes;
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'cid-refresh',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    expect(done.integrationRequests.map((i) => i.attempts)).toEqual([1, 1]);
    expect(google.state.refreshes - refreshesBefore).toBe(1);
    const stored = await loadAccountSecrets(env.deps, org.organization.id, account.id);
    expect(stored.accessToken).not.toBe(tokens.accessToken);
    expect(stored.refreshToken).toBe(tokens.refreshToken);
    expect(Date.parse(stored.expiresAt as string)).toBeGreaterThan(Date.now());
    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id, action: 'account.oauth_refreshed' },
    });
    expect(audit).toHaveLength(1);
  });

  it('fails with a clear reason when the grant was revoked (refresh answers invalid_grant)', async () => {
    const { org, caller } = await setup();
    const { account, tokens } = await expiredAccount(caller);
    google.revokeRefreshToken(tokens.refreshToken);
    await ga4Integration(caller, org.workspace.id, account.id);
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'cid-revoked',
    });
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('FAILED');
    expect(done.integrationRequests[0]).toMatchObject({
      status: 'FAILED',
      attempts: 1,
      lastError:
        'The OAuth grant of account "GA expired" was revoked or has expired (invalid_grant: Token has been expired or revoked.); reconnect the account',
    });
    const audit = await env.db.prisma.auditLog.findMany({
      where: { organizationId: org.organization.id, action: 'account.oauth_revoked' },
    });
    expect(audit).toHaveLength(1);
  });
});
