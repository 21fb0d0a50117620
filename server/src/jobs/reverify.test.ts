import net from 'node:net';
import { recordedDetails } from '../services/audit/recorded-exchanges';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCustomerDatabase, createCustomerDatabase, type CustomerDatabase } from '../test/customer-db';
import { startTestWorker, waitForRequest } from '../test/engine';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';
import { runReverification } from './reverify';

const DAY_MS = 86_400_000;
let env: TestEnv;
let customer: CustomerDatabase;
let org: Awaited<ReturnType<typeof seedOrganization>>;
const ids: Record<'restored' | 'clean', string> = { restored: '', clean: '' };
let finishedAt: Date;

beforeAll(async () => {
  env = await createTestEnv();
  customer = await createCustomerDatabase();
  org = await seedOrganization(env.deps, 'reverify');
  const caller = callerFor(env.deps, { pat: org.pat }).caller;
  await connectCustomerDatabase(caller, org.workspace.id, customer);
  await customer.seedUser('restored@example.com', { orders: 2 });
  await customer.seedUser('clean@example.com', { orders: 1 });
  ids.restored = (
    await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'restored@example.com',
    })
  ).id;
  ids.clean = (
    await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier: 'clean@example.com' })
  ).id;
  const worker = await startTestWorker(env);
  try {
    for (const id of Object.values(ids)) expect((await waitForRequest(env, id)).status).toBe('SUCCESS');
  } finally {
    await worker.stop();
  }
  finishedAt = new Date();
  // A restored backup brings one subject's rows back after the deletion.
  await customer.seedUser('restored@example.com', { orders: 1 });
});
afterAll(async () => {
  await customer?.close();
  await env?.close();
});

const irOf = (deletionRequestId: string) =>
  env.deps.prisma.integrationRequest.findFirstOrThrow({ where: { deletionRequestId } });
/** The re-verification's entries as recorded (their SQL exchanges, stored apart, back in their details). */
const actions = async (deletionRequestId: string) =>
  (
    await env.deps.prisma.auditLog.findMany({
      where: { deletionRequestId, action: { in: ['deletion.reverified', 'request.reappeared'] } },
      orderBy: { id: 'asc' },
    })
  ).map((entry) => ({ ...entry, details: recordedDetails(entry.details, entry.exchanges) }));

describe('re-verification N days after SUCCESS', () => {
  it('does nothing while the organization has it off, or before N days have passed', async () => {
    expect(await runReverification(env.deps, new Date(finishedAt.getTime() + 365 * DAY_MS))).toEqual({
      verified: 0,
      reappeared: 0,
      failed: 0,
    });
    await env.deps.prisma.organization.update({ where: { id: org.organization.id }, data: { reverifyAfterDays: 30 } });
    expect(await runReverification(env.deps, new Date(finishedAt.getTime() + 29 * DAY_MS))).toEqual({
      verified: 0,
      reappeared: 0,
      failed: 0,
    });
    expect((await irOf(ids.restored)).reverifiedAt).toBeNull();
  });

  it('catches the re-inserted rows: reappearedAt, a reappeared audit event; the clean request re-verified', async () => {
    const at = new Date(finishedAt.getTime() + 31 * DAY_MS);
    expect(await runReverification(env.deps, at)).toEqual({ verified: 1, reappeared: 1, failed: 0 });
    const restored = await irOf(ids.restored);
    expect(restored.status).toBe('SUCCESS');
    expect(restored.reverifiedAt?.toISOString()).toBe(at.toISOString());
    expect(restored.reappearedAt?.toISOString()).toBe(at.toISOString());
    const trail = await actions(ids.restored);
    expect(trail.map((e) => [e.action, e.outcome])).toEqual([
      ['deletion.reverified', 'REAPPEARED'],
      ['request.reappeared', 'REAPPEARED'],
    ]);
    expect(trail[0]!.summary).toBe(
      'Rows matching the subject came back: delete on public.orders: 1, delete on public.users: 1',
    );
    expect(JSON.stringify(trail[0]!.details)).toContain('SELECT');
    const clean = await irOf(ids.clean);
    expect(clean.reverifiedAt?.toISOString()).toBe(at.toISOString());
    expect(clean.reappearedAt).toBeNull();
    expect((await actions(ids.clean)).map((e) => [e.action, e.outcome])).toEqual([['deletion.reverified', 'VERIFIED']]);
  });

  it('re-verifies each integration request once', async () => {
    expect(await runReverification(env.deps, new Date(finishedAt.getTime() + 60 * DAY_MS))).toEqual({
      verified: 0,
      reappeared: 0,
      failed: 0,
    });
    expect(await actions(ids.restored)).toHaveLength(2);
  });

  it('offers the retry: "delete again" creates one new request for the same subject and workspace', async () => {
    const caller = callerFor(env.deps, { pat: org.pat }).caller;
    // A first call that stops after the new request was created, before the old one records the link.
    await env.deps.prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_link() RETURNS trigger AS $$
      BEGIN IF NEW.action = 'request.deleted_again' THEN RAISE EXCEPTION 'stopped'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await env.deps.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_link BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION refuse_link()`,
    );
    try {
      await expect(caller.deletionRequests.deleteAgain({ deletionRequestId: ids.restored })).rejects.toBeDefined();
    } finally {
      await env.deps.prisma.$executeRawUnsafe(`DROP TRIGGER refuse_link ON "AuditLog"`);
      await env.deps.prisma.$executeRawUnsafe(`DROP FUNCTION refuse_link()`);
    }
    const first = await caller.deletionRequests.deleteAgain({ deletionRequestId: ids.restored });
    const second = await caller.deletionRequests.deleteAgain({ deletionRequestId: ids.restored });
    expect(second.deletionRequestId).toBe(first.deletionRequestId);
    const created = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: first.deletionRequestId } });
    expect(created).toMatchObject({
      identifier: 'restored@example.com',
      workspaceId: org.workspace.id,
      regulation: 'GDPR',
    });
    const linked = await env.deps.prisma.auditLog.findMany({
      where: { deletionRequestId: ids.restored, action: 'request.deleted_again' },
    });
    expect(linked.map((e) => e.details)).toEqual([{ deletionRequestId: first.deletionRequestId }]);
    await expect(caller.deletionRequests.deleteAgain({ deletionRequestId: ids.clean })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('a store that stays unreachable holds back no other request: it is postponed, the next ones are checked', async () => {
    const caller = callerFor(env.deps, { pat: org.pat }).caller;
    const run = async (workspaceId: string, identifier: string) => {
      await customer.seedUser(identifier, { orders: 1 });
      const { id } = await caller.deletionRequests.createInWorkspace({ workspaceId, identifier });
      expect((await waitForRequest(env, id)).status).toBe('SUCCESS');
      return id;
    };
    const down = await caller.workspaces.create({ name: 'unreachable store' });
    const downIntegration = await connectCustomerDatabase(caller, down.id, customer);
    const worker = await startTestWorker(env);
    let first: string, second: string;
    try {
      first = await run(down.id, 'unreachable@example.com'); // finished first: first in line
      second = await run(org.workspace.id, 'reachable@example.com');
    } finally {
      await worker.stop();
    }
    // The first one's database moves to an address where nothing answers.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const gone = await caller.accounts.create({
      name: 'moved db',
      integrationType: 'POSTGRES',
      type: 'DATABASE',
      secrets: { ...customer.credentials, port: closed },
    });
    await env.deps.prisma.integration.update({ where: { id: downIntegration.id }, data: { accountId: gone.id } });

    // One row per page: the postponed row fills the first page of every pass.
    const at = new Date(Date.now() + 31 * DAY_MS);
    // (The request "delete again" created above has finished too: it is checked as well.)
    expect(await runReverification(env.deps, at, { batch: 1 })).toEqual({ verified: 2, reappeared: 0, failed: 0 });
    expect((await irOf(first)).reverifiedAt).toBeNull();
    expect((await irOf(second)).reverifiedAt?.toISOString()).toBe(at.toISOString());
    expect(await actions(first)).toEqual([]);
    // Still due: the next run looks again.
    expect(await runReverification(env.deps, at, { batch: 1 })).toEqual({ verified: 0, reappeared: 0, failed: 0 });
    expect((await irOf(first)).reverifiedAt).toBeNull();
  });
  it('looks again by the identifiers the deletion was sent (each user id of the person), not the email it was made with', async () => {
    const other = await seedOrganization(env.deps, 'reverify-typed');
    await env.deps.prisma.organization.update({
      where: { id: other.organization.id },
      data: { reverifyAfterDays: 30 },
    });
    const caller = callerFor(env.deps, { pat: other.pat }).caller;
    const store = await connectCustomerDatabase(caller, other.workspace.id, customer, [
      { table: 'orders', identifierColumns: ['user_id'], action: 'delete' },
      { table: 'users', identifierColumns: ['id'], action: 'delete' },
    ]);
    await caller.identities.setIntegrationType({ integrationId: store.id, consumesType: 'user_id' });
    const work = await customer.seedUser('typed-work@example.com', { orders: 1 });
    const home = await customer.seedUser('typed-home@example.com', { orders: 1 });
    const { id } = await caller.deletionRequests.createInWorkspace({
      workspaceId: other.workspace.id,
      identifier: 'typed-work@example.com',
      identifiers: [
        { type: 'user_id', value: work },
        { type: 'user_id', value: home },
      ],
    });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    expect(await customer.count('SELECT count(*) FROM users WHERE id = ANY($1::bigint[])', [[work, home]])).toBe(0);
    // A restored backup brings the second account back under its user id (with an email of its own).
    await customer.pool.query(
      `INSERT INTO users (id, email, name, phone) VALUES ($1, 'restored-typed@example.com', 'Name', '+1 555')`,
      [home],
    );
    await customer.pool.query(
      `INSERT INTO orders (user_id, customer_email, total) VALUES ($1, 'restored-typed@example.com', 1)`,
      [home],
    );

    expect(await runReverification(env.deps, new Date(Date.now() + 31 * DAY_MS))).toEqual({
      verified: 0,
      reappeared: 1,
      failed: 0,
    });
    const trail = await actions(id);
    expect(trail.map((e) => [e.action, e.outcome])).toEqual([
      ['deletion.reverified', 'REAPPEARED'],
      ['request.reappeared', 'REAPPEARED'],
    ]);
    expect(trail[0]!.summary).toContain('identifier 2 of 2');
    expect(trail[0]!.summary).toContain('public.orders: 1');
    // Both user ids were looked up again (two rules each).
    expect(JSON.stringify(trail[0]!.details).match(/SELECT/g)!.length).toBeGreaterThanOrEqual(4);
    expect((await irOf(id)).reappearedAt).not.toBeNull();

    // "Delete again" sends the user ids again (not the email alone, which this store cannot take): the restored rows go.
    const again = await caller.deletionRequests.deleteAgain({ deletionRequestId: id });
    const carried = await caller.identities.requestIdentifiers({ deletionRequestId: again.deletionRequestId });
    expect(carried.map((i) => [i.type, i.primary])).toEqual([
      ['email', true],
      ['user_id', false],
      ['user_id', false],
    ]);
    const rerun = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, again.deletionRequestId)).status).toBe('SUCCESS');
    } finally {
      await rerun.stop();
    }
    expect(await customer.count('SELECT count(*) FROM users WHERE id = $1', [home])).toBe(0);
  });
});
