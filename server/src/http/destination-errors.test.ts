import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { freePort } from '../test/stores/free-port';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let cookie: string;
let closedPort: number;
const accounts: Record<'POSTGRES' | 'MYSQL' | 'REDIS', string> = { POSTGRES: '', MYSQL: '', REDIS: '' };

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  const org = await seedOrganization(env.deps, 'destinations');
  const signIn = await fetch(`${server.baseUrl}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: org.email, password: 'correct horse battery staple' }),
  });
  cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
  // A loopback port nothing listens on: every connection to it is refused.
  closedPort = await freePort();
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const database = { host: '127.0.0.1', port: closedPort, database: 'app', user: 'app', sslMode: 'disable' };
  for (const integrationType of ['POSTGRES', 'MYSQL'] as const)
    accounts[integrationType] = (
      await caller.accounts.create({ name: integrationType, integrationType, type: 'DATABASE', secrets: database })
    ).id;
  accounts.REDIS = (
    await caller.accounts.create({
      name: 'cache',
      integrationType: 'REDIS',
      type: 'REDIS',
      secrets: { host: '127.0.0.1', port: closedPort },
    })
  ).id;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const trpc = (procedure: string, input: unknown) =>
  fetch(`${server.baseUrl}/trpc/${procedure}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });

/** A destination's failure: 422 naming its host and the cause, never the 503 of the service's own database. */
async function expectDestinationError(response: Response) {
  const body = (await response.json()) as { error: { message: string; data: { code: string } } };
  expect(response.status, JSON.stringify(body)).toBe(422);
  expect(response.headers.get('retry-after')).toBeNull();
  expect(body.error.data.code).toBe('UNPROCESSABLE_CONTENT');
  expect(body.error.message).toContain(`127.0.0.1:${closedPort}`);
  expect(body.error.message).toMatch(/ECONNREFUSED|refused/i);
  expect(body.error.message).not.toContain('The database is not reachable');
  return body.error.message;
}

describe('a customer destination that refuses connections', () => {
  it('discovery answers 422 naming the host, not 503', async () => {
    for (const accountId of [accounts.POSTGRES, accounts.MYSQL])
      await expectDestinationError(await trpc('integrations.discoverSchema', { accountId }));
  });

  it('a dry run answers 422 naming the host, not 503', async () => {
    const rules = [{ table: 'users', identifierColumns: ['email'], action: 'delete' }];
    for (const accountId of [accounts.POSTGRES, accounts.MYSQL])
      await expectDestinationError(
        await trpc('integrations.dryRun', { accountId, identifier: 'jane@example.com', config: { rules } }),
      );
    const message = await expectDestinationError(
      await trpc('integrations.dryRun', {
        accountId: accounts.REDIS,
        identifier: 'jane@example.com',
        config: { rules: [{ kind: 'keys', pattern: 'user:{{identifier}}:*' }] },
      }),
    );
    expect(message).not.toContain('jane@example.com');
  });

  it('the checks when an integration is saved answer 422 naming the host, and nothing is saved', async () => {
    const workspace = (await (await trpc('workspaces.create', { name: 'shop' })).json()) as {
      result: { data: { id: string } };
    };
    const workspaceId = workspace.result.data.id;
    await expectDestinationError(
      await trpc('integrations.create', {
        workspaceId,
        name: 'app db',
        type: 'MYSQL',
        accountId: accounts.MYSQL,
        config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'delete' }] },
      }),
    );
    const list = (await (
      await fetch(
        `${server.baseUrl}/trpc/integrations.list?input=${encodeURIComponent(JSON.stringify({ workspaceId }))}`,
        {
          headers: { cookie },
        },
      )
    ).json()) as { result: { data: unknown[] } };
    expect(list.result.data).toHaveLength(0);
  });
});
