import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordSchema, signUpInputSchema } from '@shared/schemas/auth';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { hashToken } from '../lib/tokens';
import { registerSecurityHeaders } from '../http/hardening';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'hardening');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const PASSWORD = 'correct horse battery staple';

function trpcPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.baseUrl}/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('dds_session='));
  expect(cookie).toBeTruthy();
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Lax/i);
  return cookie!.split(';')[0]!.slice('dds_session='.length);
}

describe('security headers', () => {
  it('every response carries the baseline headers; JSON gets a deny-all CSP and no-store', async () => {
    const response = await fetch(`${server.baseUrl}/api/public/deletion-requests/organization`, {
      headers: { 'x-api-key': org.pat },
    });
    expect(response.status).toBe(200);
    const h = response.headers;
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('x-frame-options')).toBe('DENY');
    expect(h.get('referrer-policy')).toBe('no-referrer');
    expect(h.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(h.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(h.get('permissions-policy')).toContain('camera=()');
    expect(h.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect(h.get('cache-control')).toBe('no-store');
    expect(h.get('strict-transport-security')).toBeNull(); // PUBLIC_URL is http in tests
  });

  it('the dashboard page gets a strict CSP: scripts and styles from our origin only, no inline, no framing', async () => {
    const response = await fetch(`${server.baseUrl}/some/deep/link`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8$/i);
    const csp = response.headers.get('content-security-policy')!;
    const directives = Object.fromEntries(
      csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    expect(directives['script-src']).toBe("'self'");
    expect(directives['style-src']).toBe("'self'");
    expect(directives['default-src']).toBe("'self'");
    expect(directives['object-src']).toBe("'none'");
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['base-uri']).toBe("'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  });

  it('a revalidated dashboard page (304) keeps the CSP of the cached page: the answer carries none', async () => {
    // The dashboard's index.html is served with an ETag and revalidated on every load (no-cache).
    const app = Fastify();
    registerSecurityHeaders(app, { PUBLIC_URL: 'http://127.0.0.1' });
    app.get('/requests', (request, reply) => {
      reply.header('etag', '"v1"');
      if (request.headers['if-none-match'] === '"v1"') return reply.code(304).send();
      return reply.type('text/html').send('<!doctype html><script type="module" src="/assets/index.js"></script>');
    });
    try {
      const page = await app.inject({ url: '/requests' });
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      const notModified = await app.inject({ url: '/requests', headers: { 'if-none-match': '"v1"' } });
      expect(notModified.statusCode).toBe(304);
      // Browsers merge a 304's headers into the stored page: a deny-all CSP here blanked the dashboard on reload.
      expect(notModified.headers['content-security-policy']).toBeUndefined();
      expect(notModified.headers['x-frame-options']).toBe('DENY');
    } finally {
      await app.close();
    }
  });

  it('the API reference page has a strict CSP and no inline script', async () => {
    const response = await fetch(`${server.baseUrl}/api/docs`);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("connect-src 'self' http://localhost:3000");
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script element loads a file
    expect(html).not.toMatch(/<style/);
  });

  it('sends HSTS and upgrade-insecure-requests when served over https', async () => {
    const httpsEnv = await createTestEnv({ PUBLIC_URL: 'https://deletions.example.com' });
    const httpsServer = await startTestServer(httpsEnv.deps);
    try {
      const response = await fetch(`${httpsServer.baseUrl}/`);
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expect(response.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
    } finally {
      await httpsServer.close();
      await httpsEnv.close();
    }
  });
});

describe('CSRF: cookie-authenticated mutations only from our own origin', () => {
  async function signedIn() {
    const response = await trpcPost('auth.signIn', { email: org.email, password: PASSWORD });
    expect(response.status).toBe(200);
    return sessionCookie(response);
  }
  const rename = (cookie: string, headers: Record<string, string>) =>
    trpcPost(
      'workspaces.rename',
      { workspaceId: org.workspace.id, name: 'renamed by csrf' },
      { cookie: `dds_session=${cookie}`, ...headers },
    );
  const workspaceName = async () =>
    (await env.db.prisma.workspace.findUniqueOrThrow({ where: { id: org.workspace.id } })).name;

  it('refuses a foreign, opaque ("null") or malformed Origin, and cross-site fetch metadata; nothing is written', async () => {
    const cookie = await signedIn();
    const before = await workspaceName();
    const attempts: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: `http://127.0.0.1.evil.example` },
      { origin: 'null' },
      { origin: 'not a url' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: server.baseUrl },
    ];
    for (const headers of attempts) {
      const response = await rename(cookie, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect((await response.json()).error.message).toBe('Cross-origin request refused');
    }
    expect(await workspaceName()).toBe(before);
    // Sign-in is a mutation too: no login CSRF.
    expect(
      (await trpcPost('auth.signIn', { email: org.email, password: PASSWORD }, { origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
  });

  it("accepts the same origin, PUBLIC_URL's origin, and non-browser calls without Origin", async () => {
    const cookie = await signedIn();
    expect((await rename(cookie, { origin: server.baseUrl, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await rename(cookie, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await rename(cookie, {})).status).toBe(200);
    expect(await workspaceName()).toBe('renamed by csrf');
  });

  it('queries (no side effects) are not subject to the check', async () => {
    const cookie = await signedIn();
    const response = await fetch(`${server.baseUrl}/trpc/auth.me`, {
      headers: { cookie: `dds_session=${cookie}`, origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
    // The answer carries no CORS grant, so the foreign page cannot read it.
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('sessions', () => {
  it('signing in rotates the session: the previous cookie stops working and only a hash is stored', async () => {
    const first = sessionCookie(await trpcPost('auth.signIn', { email: org.email, password: PASSWORD }));
    const second = sessionCookie(
      await trpcPost('auth.signIn', { email: org.email, password: PASSWORD }, { cookie: `dds_session=${first}` }),
    );
    expect(second).not.toBe(first);
    const me = (cookie: string) =>
      fetch(`${server.baseUrl}/trpc/auth.me`, { headers: { cookie: `dds_session=${cookie}` } });
    expect((await me(first)).status).toBe(401);
    expect((await me(second)).status).toBe(200);
    expect(await env.db.prisma.session.count({ where: { tokenHash: hashToken(first) } })).toBe(0);
    expect(await env.db.prisma.session.count({ where: { tokenHash: second } })).toBe(0);
    expect(await env.db.prisma.session.count({ where: { tokenHash: hashToken(second) } })).toBe(1);
  });

  it('a planted (fixated) cookie is never adopted: sign-in issues a new token', async () => {
    const planted = 'attacker-chosen-session-value';
    const issued = sessionCookie(
      await trpcPost('auth.signIn', { email: org.email, password: PASSWORD }, { cookie: `dds_session=${planted}` }),
    );
    expect(issued).not.toBe(planted);
  });
});

describe('accounts', () => {
  it('sign-in answers identically for an unknown email and a wrong password', async () => {
    const unknown = await trpcPost('auth.signIn', { email: 'nobody-here@example.com', password: 'whatever password' });
    const wrong = await trpcPost('auth.signIn', { email: org.email, password: 'whatever password' });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const strip = (body: any) => ({ code: body.error.code, message: body.error.message });
    expect(strip(await unknown.json())).toEqual(strip(await wrong.json()));
  });

  it('password rules: length 10-200, no well-known password, not one repeated character', () => {
    expect(passwordSchema.safeParse('short').success).toBe(false);
    expect(passwordSchema.safeParse('x'.repeat(201)).success).toBe(false);
    expect(passwordSchema.safeParse('Password123').success).toBe(false);
    expect(passwordSchema.safeParse('1234567890').success).toBe(false);
    expect(passwordSchema.safeParse('aaaaaaaaaaaa').success).toBe(false);
    expect(passwordSchema.safeParse('ababababab').success).toBe(false);
    expect(passwordSchema.safeParse(PASSWORD).success).toBe(true);
    expect(passwordSchema.safeParse('ünïcödé pässwörd ✓').success).toBe(true);
  });

  it('sign-up refuses weak passwords before creating anything', async () => {
    const response = await trpcPost('auth.signUp', {
      email: 'weak@example.com',
      password: 'password123',
      name: 'W',
      organizationName: 'W',
    });
    expect(response.status).toBe(400);
    expect(await env.db.prisma.user.count({ where: { email: 'weak@example.com' } })).toBe(0);
    expect(
      signUpInputSchema.safeParse({ email: 'weak@example.com', password: PASSWORD, name: 'W', organizationName: 'W' })
        .success,
    ).toBe(true);
  });
});
