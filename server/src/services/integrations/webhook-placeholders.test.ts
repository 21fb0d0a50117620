import { afterAll, beforeAll, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

it("a webhook's placeholders are checked when it is saved: each names what its call will have, on the field to fix", async () => {
  const org = await seedOrganization(env.deps, 'placeholders');
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const account = await caller.accounts.create({
    name: 'crm secrets',
    integrationType: 'WEBHOOK',
    type: 'KEY_VALUE',
    secrets: { token: 'a-secret-token-value-1234' },
  });
  const save = (config: Record<string, unknown>, accountId: string | null = account.id) =>
    caller.integrations.create({ workspaceId: org.workspace.id, name: 'CRM', type: 'WEBHOOK', accountId, config });
  const refused = async (config: Record<string, unknown>, accountId?: string | null) => {
    const error = (await save(config, accountId).catch((e: unknown) => e)) as {
      code?: string;
      cause?: { details?: { issues?: { path: (string | number)[]; message: string }[] } };
    };
    expect(error.code).toBe('BAD_REQUEST');
    return error.cause?.details?.issues?.[0];
  };
  const before = await env.deps.prisma.integration.count();

  // A typo, a key the account does not have, or no account at all.
  expect(
    await refused({
      initiate: { url: 'http://127.0.0.1:9/erase/{{identifer}}', headers: { authorization: 'Bearer {{token}}' } },
    }),
  ).toEqual({
    path: ['config', 'initiate', 'url'],
    message: expect.stringContaining('{{identifer}} is not known here'),
  });
  expect(
    await refused({
      initiate: { url: 'http://127.0.0.1:9/erase', headers: { authorization: 'Bearer {{apiKey}}' } },
    }),
  ).toEqual({ path: ['config', 'initiate', 'headers', 'authorization'], message: expect.stringContaining('(token)') });
  expect(
    await refused({ initiate: { url: 'http://127.0.0.1:9/erase', body: '{"key": "{{token}}"}' } }, null),
  ).toMatchObject({ path: ['config', 'initiate', 'body'], message: expect.stringContaining('none attached') });
  // {{trackingId}}: only what an async webhook's initiate call returned, in its later calls.
  expect(await refused({ initiate: { url: 'http://127.0.0.1:9/erase?job={{trackingId}}' } })).toMatchObject({
    path: ['config', 'initiate', 'url'],
    message: expect.stringContaining('initiate call returns'),
  });
  expect(
    await refused({
      initiate: { url: 'http://127.0.0.1:9/erase' },
      cancel: { url: 'http://127.0.0.1:9/jobs/{{trackingId}}', method: 'DELETE' },
    }),
  ).toMatchObject({ path: ['config', 'cancel', 'url'], message: expect.stringContaining('only known to an async') });
  expect(await env.deps.prisma.integration.count()).toBe(before);

  // What each call will have is accepted.
  await expect(
    save({
      mode: 'async',
      initiate: {
        url: 'http://127.0.0.1:9/erase',
        headers: { authorization: 'Bearer {{token}}' },
        body: '{"email": "{{ identifier }}"}',
        trackingIdPath: '$.job',
      },
      status: { url: 'http://127.0.0.1:9/jobs/{{trackingId}}', method: 'GET', statusPath: '$.state' },
      cancel: { url: 'http://127.0.0.1:9/jobs/{{trackingId}}', method: 'DELETE' },
    }),
  ).resolves.toMatchObject({ type: 'WEBHOOK' });
});
