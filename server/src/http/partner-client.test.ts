import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerClient } from '@shared/partner-client';
import { createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { contractFetch } from '../test/openapi-contract';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'partner');
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

/** The generated client's calls, through the contract check as well. */
function partnerClient(token: string) {
  const checked = contractFetch(server.baseUrl);
  const fetchThroughContract: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    return checked(url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      body: request.body ? await request.text() : undefined,
    });
  };
  return createPartnerClient({ baseUrl: server.baseUrl, token, fetch: fetchThroughContract });
}

describe('typed partner client (openapi-fetch on the generated types)', () => {
  it('creates a request (201), lists it and checks the subject', async () => {
    const api = partnerClient(org.pat);
    const created = await api.POST('/deletion-requests', {
      body: { workspaceApiKey: org.workspaceApiKey, identifier: 'typed@example.com' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.id).toMatch(/^dr_/);
    const listed = await api.GET('/deletion-requests/workspace/{workspaceId}', {
      params: { path: { workspaceId: org.workspace.id }, query: { limit: 10 } },
    });
    expect(listed.data?.map((r) => r.id)).toContain(created.data!.id);
    const checked = await api.POST('/erasure-checks', { body: { identifier: 'typed@example.com' } });
    expect(checked.data).toMatchObject({ found: true, deletionRequestId: created.data!.id });
  });

  it('surfaces the typed error body', async () => {
    const api = partnerClient(org.pat);
    const { error, response } = await api.POST('/deletion-requests', {
      body: { workspaceApiKey: 'dds_wsk_nope', identifier: 'x' },
    });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
  });
});
