import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCertificate } from '../../services/certificates/build-certificate';
import { sealAuditChain } from '../../services/audit/audit-chain';
import { createCustomerDatabase } from '../../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { startBigqueryFake } from './fake';

/**
 * BigQuery as a connector of the service, through the API a user has: a write-only service
 * account key, the byte ceiling refusing at save time and at dry run (422), and a request run by
 * the worker to SUCCESS whose outcome and certificate say how long BigQuery keeps deleted rows.
 */
let env: TestEnv;
let fake: Awaited<ReturnType<typeof startBigqueryFake>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let caller: ReturnType<typeof callerFor>['caller'];
const JANE = 'jane@example.com';

beforeAll(async () => {
  fake = await startBigqueryFake({ database: await createCustomerDatabase() });
  await fake.createDataset('crm', { location: 'EU', maxTimeTravelHours: 96 });
  await fake.sql(
    `CREATE TABLE crm.users (id bigint, email text); INSERT INTO crm.users VALUES (1, '${JANE}'), (2, 'JANE@example.com');`,
  );
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  org = await seedOrganization(env.deps, 'bigquery');
  caller = callerFor(env.deps, { pat: org.pat }).caller;
}, 120_000);
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

const config = (maxBytesScanned?: number) => ({
  projectId: fake.projectId,
  location: 'EU',
  baseUrl: fake.url,
  tokenUri: fake.tokenUri,
  ...(maxBytesScanned ? { maxBytesScanned } : {}),
  rules: [{ schema: 'crm', table: 'users', identifierColumns: ['email'], action: 'delete' }],
});

describe('BigQuery through the API and the worker', () => {
  it('keeps the key write-only, refuses a rule over the byte ceiling, and runs a request to SUCCESS with the time travel notice', async () => {
    const account = await caller.accounts.create({
      name: 'warehouse',
      integrationType: 'BIGQUERY',
      type: 'GOOGLE_SERVICE_ACCOUNT',
      secrets: { serviceAccountKey: fake.keyJson },
    });
    expect(JSON.stringify(await caller.accounts.list())).not.toContain('PRIVATE KEY');
    await expect(
      caller.accounts.create({
        name: 'not a key',
        integrationType: 'BIGQUERY',
        type: 'GOOGLE_SERVICE_ACCOUNT',
        secrets: { serviceAccountKey: '{"type":"authorized_user"}' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });

    // The rule builder's discovery, told the project and location (without them: the key's project, every location).
    const tables = await caller.integrations.discoverSchema({ accountId: account.id, config: config() });
    expect(tables.map((t) => [`${t.schema}.${t.table}`, t.columns.map((c) => `${c.name} ${c.dataType}`)])).toEqual([
      ['crm.users', ['id INT64', 'email STRING']],
    ]);
    await expect(
      caller.integrations.dryRun({ accountId: account.id, identifier: JANE, config: config(10) }),
    ).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringContaining('ceiling of 10 bytes') });
    await expect(
      caller.integrations.create({
        workspaceId: org.workspace.id,
        name: 'too tight',
        type: 'BIGQUERY',
        accountId: account.id,
        config: config(10),
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('ceiling of 10 bytes') });

    const preview = await caller.integrations.dryRun({ accountId: account.id, identifier: JANE, config: config() });
    expect(preview.rules).toEqual([
      expect.objectContaining({
        table: 'crm.users',
        rows: 1,
        rule: expect.stringMatching(/^delete on crm\.users \(reads \d+ bytes\)$/),
      }),
    ]);

    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'warehouse',
      type: 'BIGQUERY',
      accountId: account.id,
      config: config(),
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: JANE,
    });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, created.id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    expect((await fake.sql('SELECT email FROM crm.users')).rows).toEqual([{ email: 'JANE@example.com' }]);
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const step = trail.find((e) => e.action === 'deletion.requested')!;
    expect(step.summary).toContain('time travel for 96 hours (4 days), then for 7 days of fail-safe');
    expect(JSON.stringify(trail)).not.toContain(JANE);
    expect(JSON.stringify(trail)).not.toContain('PRIVATE KEY');

    await sealAuditChain(env.deps.prisma);
    const certificate = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, created.id);
    expect(JSON.stringify(certificate)).toContain('time travel for 96 hours (4 days), then for 7 days of fail-safe');
    expect(JSON.stringify(certificate)).toMatch(/"retainedBy":\{[^}]*"longestDays":4[^}]*\}/);
    expect(JSON.stringify(certificate)).toMatch(/"retainedBy":\{[^}]*"failSafeDays":7[^}]*\}/);
  }, 120_000);
});
