import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../routers/root';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

/** The dashboard's own client, over real HTTP, with a cookie jar. */
function client(headers: Record<string, string> = {}) {
  let cookie = '';
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${server.baseUrl}/trpc`,
        headers: () => ({ ...headers, ...(cookie ? { cookie } : {}) }),
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          const set = response.headers.get('set-cookie');
          if (set) cookie = set.split(';')[0]!;
          return response;
        },
      }),
    ],
  });
}

describe('the tRPC channel', () => {
  it('errors reach the tRPC client with the name in data.code, zod issues and no stack trace', async () => {
    const failure = await client()
      .auth.signUp.mutate({ email: 'not-an-email', password: 'short', name: '', organizationName: 'x' })
      .catch((e) => e);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect(failure.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(failure.shape.issues.map((i: { path: string[] }) => i.path[0]).sort()).toEqual([
      'email',
      'name',
      'password',
    ]);
    expect(JSON.stringify(failure.shape)).not.toMatch(/stack|\.ts:\d+/);
    const unauthorized = await client()
      .workspaces.list.query()
      .catch((e) => e);
    expect(unauthorized.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
  });

  it('signs up, keeps the session cookie and serves the same procedures', async () => {
    const dashboard = client({ origin: server.baseUrl });
    await dashboard.auth.signUp.mutate({
      email: 'dash@example.com',
      password: 'long enough password',
      name: 'Dash',
      organizationName: 'Dash Org',
    });
    const workspace = await dashboard.workspaces.create.mutate({ name: 'From the dashboard' });
    const created = await dashboard.deletionRequests.createInWorkspace.mutate({
      workspaceId: workspace.id,
      identifier: 'dash-subject@example.com',
    });
    expect(created).toMatchObject({ channel: 'DASHBOARD', status: 'FAILED' });
  });

  it('refuses cookie-authenticated mutations from another origin', async () => {
    const org = await seedOrganization(env.deps);
    const foreign = client({ origin: 'https://evil.example' });
    const failure = await foreign.auth.signIn
      .mutate({ email: org.email, password: 'correct horse battery staple' })
      .catch((e) => e);
    expect(failure.data).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a mutation sent without a content type, or as text/plain, is answered 415 with its error body', async () => {
    const body = JSON.stringify({ email: 'x@example.com', password: 'correct horse battery staple' });
    // fetch labels a string body text/plain; bytes go without any content type.
    const sends: { headers: Record<string, string>; body?: BodyInit }[] = [
      { headers: {}, body: new Blob([body]) },
      { headers: { 'content-type': 'text/plain' }, body },
      { headers: { 'content-type': 'text/plain;charset=UTF-8' }, body },
      { headers: {} },
    ];
    for (const send of sends) {
      for (const path of ['auth.signIn', 'auth.signIn,auth.signIn?batch=1']) {
        const what = `${path} ${JSON.stringify(send.headers)} ${send.body ? 'with' : 'without'} a body`;
        const response = await fetch(`${server.baseUrl}/trpc/${path}`, { method: 'POST', ...send });
        const text = await response.text();
        expect(response.status, `${what}: ${text}`).toBe(415);
        const answer = JSON.parse(text) as { code?: string; error?: { code: string } };
        expect((answer.error ?? answer).code, what).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
    }
  });
});
