import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let a: Awaited<ReturnType<typeof seedOrganization>>;
let b: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv({
    API_RATE_LIMIT_PER_TOKEN: '3',
    API_RATE_LIMIT_PER_IP: '6',
    SIGN_IN_LIMIT_PER_EMAIL: '3',
    SIGN_IN_LIMIT_PER_IP: '5',
  });
  server = await startTestServer(env.deps);
  a = await seedOrganization(env.deps, 'limits-a');
  b = await seedOrganization(env.deps, 'limits-b');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const list = (headers: Record<string, string>) =>
  fetch(`${server.baseUrl}/api/public/deletion-requests/organization`, { headers });

async function expect429(response: Response) {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
  const body = await response.json();
  expect(Object.keys(body).sort()).toEqual(['code', 'message']);
  expect(body.code).toBe('TOO_MANY_REQUESTS');
  return retryAfter;
}

describe('public API rate limits', () => {
  it('limits each personal access token, whatever address it comes from', async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await list({ 'x-api-key': a.pat, 'x-forwarded-for': `198.51.100.${i + 1}` });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
    }
    const retryAfter = await expect429(await list({ 'x-api-key': a.pat, 'x-forwarded-for': '198.51.100.99' }));
    expect(retryAfter).toBe(20);
    // Another token is not affected.
    expect((await list({ 'x-api-key': b.pat, 'x-forwarded-for': '198.51.100.98' })).status).toBe(200);
  });

  it('limits each client address, also for invalid or missing tokens, before any database work', async () => {
    const from = { 'x-forwarded-for': '203.0.113.50' };
    for (let i = 0; i < 6; i++) expect((await list({ ...from, 'x-api-key': `dds_pat_random${i}` })).status).toBe(401);
    await expect429(await list(from));
    await expect429(
      await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
        method: 'POST',
        headers: { ...from, 'content-type': 'application/json' },
        body: '{',
      }),
    );
    expect((await list({ 'x-forwarded-for': '203.0.113.51' })).status).toBe(401);
  });

  it('does not limit the dashboard, health or docs routes', async () => {
    for (let i = 0; i < 10; i++)
      expect(
        (await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.50' } })).status,
      ).toBe(200);
  });
});

describe('client address behind proxies', () => {
  it('ignores X-Forwarded-For from peers that TRUST_PROXY does not name', async () => {
    const strictEnv = await createTestEnv({ TRUST_PROXY: 'false', API_RATE_LIMIT_PER_IP: '2' });
    const strictServer = await startTestServer(strictEnv.deps);
    try {
      const call = (xff: string) =>
        fetch(`${strictServer.baseUrl}/api/public/deletion-requests/organization`, {
          headers: { 'x-forwarded-for': xff },
        });
      expect((await call('192.0.2.1')).status).toBe(401);
      expect((await call('192.0.2.2')).status).toBe(401);
      // A spoofed header cannot buy a fresh bucket: the peer address (loopback) is what counts.
      await expect429(await call('192.0.2.3'));
    } finally {
      await strictServer.close();
      await strictEnv.close();
    }
  });
});

describe('sign-in attempt limits', () => {
  const signIn = (email: string, password: string, xff: string) =>
    fetch(`${server.baseUrl}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
      body: JSON.stringify({ email, password }),
    });

  it('limits attempts per account email across addresses, with Retry-After', async () => {
    for (let i = 0; i < 3; i++)
      expect((await signIn(a.email, 'wrong password!', `192.0.2.${10 + i}`)).status).toBe(401);
    const refused = await signIn(a.email, 'correct horse battery staple', '192.0.2.20');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await refused.json();
    expect(body.error?.data?.code ?? body.error?.code ?? body.code).toBe('TOO_MANY_REQUESTS');
    expect(JSON.stringify(body)).not.toContain('correct horse');
    // Another account signs in from the same address.
    expect((await signIn(b.email, 'correct horse battery staple', '192.0.2.20')).status).toBe(200);
  });

  it('limits attempts per address across accounts, sign-ups included', async () => {
    const from = '192.0.2.77';
    for (let i = 0; i < 5; i++)
      expect((await signIn(`nobody${i}@example.com`, 'wrong password!', from)).status).toBe(401);
    expect((await signIn(b.email, 'correct horse battery staple', from)).status).toBe(429);
    const signUp = await fetch(`${server.baseUrl}/trpc/auth.signUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({
        email: 'new@example.com',
        password: 'a long enough passphrase',
        name: 'New',
        organizationName: 'New org',
      }),
    });
    expect(signUp.status).toBe(429);
    expect(await env.db.prisma.user.count({ where: { email: 'new@example.com' } })).toBe(0);
  });
});
