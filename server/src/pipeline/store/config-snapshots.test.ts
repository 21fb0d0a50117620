import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { createDeletionRequest } from '../commands/create';

/**
 * An integration request's frozen configuration is stored once per distinct configuration of
 * an organization: requests that ran with the same one share its row, a changed configuration
 * gets a row of its own, and each request still reads the configuration it was created with.
 * No worker runs: the requests stay queued.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

async function organizationWithTwoWebhooks(label: string) {
  const org = await seedOrganization(env.deps, label);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  const crm = await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
  const billing = await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'Billing',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/billing' } },
  });
  const create = async (identifier: string) =>
    (await createDeletionRequest(env.deps, org.actor, { workspace: { id: org.workspace.id }, identifier }))
      .deletionRequest.id;
  return { org, caller, crm, billing, create };
}

const snapshotsOf = (organizationId: string) =>
  env.deps.prisma.configSnapshot.findMany({ where: { organizationId }, select: { id: true, config: true } });

/** Each integration request of the request: its integration's name and the configuration it reads. */
async function frozen(deletionRequestId: string) {
  const rows = await env.deps.prisma.integrationRequest.findMany({
    where: { deletionRequestId },
    select: { integrationName: true, configSnapshot: { select: { config: true } } },
  });
  return Object.fromEntries(rows.map((r) => [r.integrationName, r.configSnapshot.config]));
}

describe('configuration snapshots', () => {
  it('requests to the same integrations share one stored copy of each configuration', async () => {
    const { org, create } = await organizationWithTwoWebhooks('snapshots-shared');
    const ids = [await create('a@example.com'), await create('b@example.com'), await create('c@example.com')];
    expect(await env.deps.prisma.integrationRequest.count({ where: { deletionRequestId: { in: ids } } })).toBe(6);
    const stored = await snapshotsOf(org.organization.id);
    expect(stored).toHaveLength(2);
    for (const id of ids)
      expect(await frozen(id)).toMatchObject({
        CRM: { initiate: { url: 'http://127.0.0.1:9/erase' } },
        Billing: { initiate: { url: 'http://127.0.0.1:9/billing' } },
      });
  });

  it('a changed configuration is stored beside the old one; earlier requests keep what they were created with', async () => {
    const { org, caller, crm, create } = await organizationWithTwoWebhooks('snapshots-changed');
    const before = await create('before@example.com');
    await caller.integrations.update({ integrationId: crm.id, config: { initiate: { url: 'http://127.0.0.1:9/v2' } } });
    const after = await create('after@example.com');
    expect(await snapshotsOf(org.organization.id)).toHaveLength(3);
    expect((await frozen(before)).CRM).toMatchObject({ initiate: { url: 'http://127.0.0.1:9/erase' } });
    expect((await frozen(after)).CRM).toMatchObject({ initiate: { url: 'http://127.0.0.1:9/v2' } });
  });

  it("another organization's identical configuration is a row of its own, and goes with its organization", async () => {
    const one = await organizationWithTwoWebhooks('snapshots-one');
    const two = await organizationWithTwoWebhooks('snapshots-two');
    await one.create('one@example.com');
    const kept = await two.create('two@example.com');
    const [ofOne, ofTwo] = [await snapshotsOf(one.org.organization.id), await snapshotsOf(two.org.organization.id)];
    expect(ofOne).toHaveLength(2);
    expect(ofTwo).toHaveLength(2);
    // The same JSON, keyed apart by the organization.
    expect(ofOne.map((s) => s.config)).toEqual(expect.arrayContaining(ofTwo.map((s) => s.config)));
    const keysOfTwo = new Set(ofTwo.map((s) => Buffer.from(s.id).toString('hex')));
    for (const s of ofOne) expect(keysOfTwo.has(Buffer.from(s.id).toString('hex'))).toBe(false);
    // Deleting an organization removes its requests and their snapshots in one statement.
    await env.deps.prisma.organization.delete({ where: { id: one.org.organization.id } });
    expect(await snapshotsOf(one.org.organization.id)).toHaveLength(0);
    expect(await snapshotsOf(two.org.organization.id)).toHaveLength(2);
    expect(Object.keys(await frozen(kept)).sort()).toEqual(['Billing', 'CRM']);
  });
});
