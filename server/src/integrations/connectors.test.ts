import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { integrationCatalogue } from '@shared/integrations';
import { INTEGRATION_TYPES, type IntegrationType } from '@shared/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

/**
 * The layout of a connector (README, "Adding a connector"). Every registered type has a folder
 * `server/src/integrations/<type in kebab case>/` with its `driver.ts`, and:
 * - a SaaS vendor (any category but Database and Custom) has there its `fake.ts` (named in
 *   `fakes.ts`), its `contract.test.ts` (the fake against the vendor's published contract) and
 *   its `SOURCES.md` (the vendor's words for every fact);
 * - a data store (category Database) has at least one test there, run against the real server
 *   or emulator of server/src/test/stores;
 * - our own contracts (category Custom: the webhook, manual tasks) need only the driver, their
 *   contract being this project's own and tested where it is served.
 */
const HERE = import.meta.dirname;
const folderOf = (type: IntegrationType) => type.toLowerCase().replace(/_/g, '-');
const filesOf = (type: IntegrationType) => fs.readdirSync(path.join(HERE, folderOf(type)));
const kind = (type: IntegrationType) => {
  const { category } = integrationCatalogue[type];
  return category === 'Database' ? 'store' : category === 'Custom' ? 'own' : 'saas';
};

describe('connector layout', () => {
  const fakesList = fs.readFileSync(path.join(HERE, 'fakes.ts'), 'utf8');

  it.each(INTEGRATION_TYPES)('%s has its folder, with what its kind of connector needs', (type) => {
    const files = filesOf(type);
    expect(files).toContain('driver.ts');
    if (kind(type) === 'saas') {
      expect(files).toEqual(expect.arrayContaining(['fake.ts', 'contract.test.ts', 'SOURCES.md']));
      expect(fakesList).toContain(`from './${folderOf(type)}/fake'`);
    }
    if (kind(type) === 'store') expect(files.some((file) => file.endsWith('.test.ts'))).toBe(true);
  });

  it('has no fake or contract test in a folder whose connector is not registered', () => {
    const registered = new Set(INTEGRATION_TYPES.map(folderOf));
    const stray = fs
      .readdirSync(HERE, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .filter((entry) => ['fake.ts', 'contract.test.ts'].some((f) => fs.existsSync(path.join(HERE, entry.name, f))))
      .map((entry) => entry.name)
      .filter((folder) => !registered.has(folder));
    expect(stray).toEqual([]);
    // The rule above is really applied: most connectors are SaaS vendors with a fake.
    expect(INTEGRATION_TYPES.filter((type) => kind(type) === 'saas').length).toBeGreaterThan(10);
  });
});

describe('integration types stored as text', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('leaves no column of an IntegrationType enum after the migrations', async () => {
    const client = new pg.Client({ connectionString: env.db.url });
    await client.connect();
    try {
      const enums = await client.query(`SELECT 1 FROM pg_type WHERE typname = 'IntegrationType'`);
      expect(enums.rowCount).toBe(0);
      const columns = await client.query<{ table: string; column: string; type: string }>(
        `SELECT table_name AS table, column_name AS column, data_type AS type FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name IN ('type', 'integrationType')
            AND table_name IN ('Account', 'Integration', 'IntegrationRequest')`,
      );
      expect(columns.rows.map((c) => `${c.table}.${c.column}`).sort()).toEqual([
        'Account.integrationType',
        'Account.type',
        'Integration.type',
        'IntegrationRequest.integrationType',
      ]);
      for (const c of columns.rows.filter((c) => c.table !== 'Account' || c.column === 'integrationType'))
        expect(c.type, `${c.table}.${c.column}`).toBe('text');
    } finally {
      await client.end();
    }
  });

  it('refuses an unregistered type with a 400 naming the field, and writes nothing', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const unknown = 'NOT_A_CONNECTOR' as IntegrationType;
    await expect(
      caller.integrations.create({ workspaceId: org.workspace.id, name: 'x', type: unknown, config: {} }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', cause: { issues: [{ path: ['type'] }] } });
    await expect(
      caller.accounts.create({ name: 'x', integrationType: unknown, type: 'API_KEY', secrets: { apiKey: 'k' } }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', cause: { issues: [{ path: ['integrationType'] }] } });
    expect(await env.deps.prisma.integration.count({ where: { workspaceId: org.workspace.id } })).toBe(0);
    expect(await env.deps.prisma.account.count({ where: { organizationId: org.organization.id } })).toBe(0);
  });
});
