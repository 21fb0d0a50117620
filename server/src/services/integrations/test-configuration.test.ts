import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomerDatabase, type CustomerDatabase } from '../../test/customer-db';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';

let env: TestEnv;
let customer: CustomerDatabase;
let caller: ReturnType<typeof callerFor>['caller'];
let organizationId: string;
let server: http.Server;
let okPort: number;
/** A port nothing listens on: a closed server's. */
let refusedPort: number;

async function listen(handler: http.RequestListener): Promise<http.Server> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return s;
}

beforeAll(async () => {
  env = await createTestEnv();
  customer = await createCustomerDatabase();
  const org = await seedOrganization(env.deps);
  organizationId = org.organization.id;
  caller = callerFor(env.deps, { pat: org.pat }).caller;
  server = await listen((_req, res) => res.writeHead(200).end('ok'));
  okPort = (server.address() as AddressInfo).port;
  const closed = await listen(() => {});
  refusedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  server?.close();
  await customer?.close();
  await env?.close();
});

/** What the organization has stored: a test must leave all of it as it was. */
async function stored() {
  const [audit, integrations, accounts] = await Promise.all([
    env.db.prisma.auditLog.count({ where: { organizationId } }),
    env.db.prisma.integration.count({ where: { workspace: { organizationId } } }),
    env.db.prisma.account.count({ where: { organizationId } }),
  ]);
  return { audit, integrations, accounts };
}

const webhook = (url: string) => ({ mode: 'sync', initiate: { method: 'POST', url, body: '{"id":"{{identifier}}"}' } });

describe('testing an unsaved integration', () => {
  it('passes against a destination that answers, and fails naming the host of one that refuses; nothing is written', async () => {
    const before = await stored();
    const pass = await caller.integrations.testConfiguration({
      type: 'WEBHOOK',
      config: webhook(`http://127.0.0.1:${okPort}/erase`),
    });
    expect(pass).toMatchObject({ ok: true, host: `127.0.0.1:${okPort}`, trial: null });
    expect(pass.message).toContain('HTTP 200');
    const fail = await caller.integrations.testConfiguration({
      type: 'WEBHOOK',
      config: webhook(`http://127.0.0.1:${refusedPort}/erase`),
    });
    expect(fail).toMatchObject({ ok: false, host: `127.0.0.1:${refusedPort}` });
    expect(fail.message).toMatch(/ECONNREFUSED/);
    expect(await stored()).toEqual(before);
  });

  it('applies the outbound address policy to the unsaved URLs, on the field that holds them', async () => {
    await expect(
      caller.integrations.testConfiguration({ type: 'WEBHOOK', config: webhook('http://169.254.169.254/latest') }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      cause: { details: { issues: [{ path: ['config', 'initiate', 'url'] }] } },
    });
    await expect(
      caller.integrations.testConfiguration({
        type: 'POSTGRES',
        config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'delete' }] },
        account: { type: 'DATABASE', secrets: { ...customer.credentials, host: '10.1.2.3' } },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', cause: { details: { issues: [{ path: ['secrets', 'host'] }] } } });
  });

  it('tests credentials typed in the form without saving them, and never answers the password', async () => {
    const before = await stored();
    const password = 'a-password-nobody-may-read-7731';
    const result = await caller.integrations.testConfiguration({
      type: 'POSTGRES',
      config: { rules: [{ table: 'users', identifierColumns: ['email'], action: 'delete' }] },
      account: { type: 'DATABASE', secrets: { ...customer.credentials, port: refusedPort, password } },
    });
    expect(result).toMatchObject({ ok: false, host: `127.0.0.1:${refusedPort}` });
    expect(JSON.stringify(result)).not.toContain(password);
    expect(await stored()).toEqual(before);
  });

  it('connects a data store with credentials alone before any rule is written; a trial run needs the rules', async () => {
    const account = { type: 'DATABASE' as const, secrets: customer.credentials };
    const result = await caller.integrations.testConfiguration({ type: 'POSTGRES', config: { rules: [] }, account });
    expect(result).toMatchObject({ ok: true, message: expect.stringContaining('Connected: PostgreSQL') });
    await expect(
      caller.integrations.testConfiguration({
        type: 'POSTGRES',
        config: { rules: [] },
        account,
        trialIdentifier: 'someone@example.com',
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('a trial run counts what a deletion would change for a test identifier, changes nothing and records no identifier', async () => {
    const identifier = 'trial-subject@example.com';
    await customer.seedUser(identifier, { orders: 2, events: 3 });
    const before = await stored();
    const result = await caller.integrations.testConfiguration({
      type: 'POSTGRES',
      config: {
        rules: [
          { table: 'orders', identifierColumns: ['customer_email'], action: 'delete' },
          { table: 'events', identifierColumns: ['distinct_id'], action: 'delete' },
        ],
      },
      account: { type: 'DATABASE', secrets: customer.credentials },
      trialIdentifier: identifier,
    });
    expect(result.ok).toBe(true);
    expect(result.trial).toMatchObject({ offered: true, ok: true });
    expect(result.trial && 'rules' in result.trial ? result.trial.rules.map((r) => r.rows) : null).toEqual([2, 3]);
    expect(JSON.stringify(result)).not.toContain(identifier);
    expect(await customer.count(`SELECT count(*) FROM orders WHERE customer_email = '${identifier}'`)).toBe(2);
    expect(await stored()).toEqual(before);
  });

  it('says when a destination has no dry run, and refuses another organization’s account as not found', async () => {
    const result = await caller.integrations.testConfiguration({
      type: 'WEBHOOK',
      config: webhook(`http://127.0.0.1:${okPort}/erase`),
      trialIdentifier: 'someone@example.com',
    });
    expect(result.trial).toMatchObject({ offered: false });
    await expect(
      caller.integrations.testConfiguration({
        type: 'WEBHOOK',
        config: webhook(`http://127.0.0.1:${okPort}/erase`),
        accountId: 'acc_not_ours',
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
