import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { sealAuditChain, verifyAuditChain } from '../../services/audit/audit-chain';
import { finishSteps, type FinishingStep } from './finish';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

/** One deletion request fanned out to two webhook integrations; no worker runs. */
async function request() {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  for (const name of ['CRM', 'Billing']) {
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name,
      type: 'WEBHOOK',
      accountId: null,
      config: {
        mode: 'sync',
        initiate: { method: 'POST', url: 'http://127.0.0.1:9/erase', body: '{"id":"{{identifier}}"}' },
      },
    });
  }
  const created = await caller.deletionRequests.createInWorkspace({
    workspaceId: org.workspace.id,
    identifier: 'polled-subject@example.com',
  });
  const [crm, billing] = created.integrationRequests!;
  return { organizationId: org.organization.id, requestId: created.id, crm: crm!.id, billing: billing!.id };
}

async function lease(id: string, workerId: string) {
  await env.db.pool.query(
    `UPDATE "IntegrationRequest" SET "lockedBy" = $2, "lockedUntil" = now() + interval '1 minute' WHERE id = $1`,
    [id, workerId],
  );
}

type Subject = Awaited<ReturnType<typeof request>>;

/** A status check that found the job still running, as the worker writes it. */
function poll(subject: Subject, id: string, summary: string, result = 'pending'): FinishingStep {
  return {
    id,
    deletionRequestId: subject.requestId,
    status: 'PROCESSING',
    data: { status: 'PROCESSING', lastError: null, nextAttemptAt: new Date(Date.now() + 60_000) },
    entries: [
      {
        organizationId: subject.organizationId,
        deletionRequestId: subject.requestId,
        integrationRequestId: id,
        action: 'deletion.status_checked',
        outcome: 'PROCESSING',
        summary,
        details: { result, exchanges: [{ kind: 'http', at: Math.random() }] },
        foldRepeats: true,
      },
    ],
  };
}

async function polled(subject: Subject, id: string, summary: string, workerId = 'w1', result?: string) {
  await lease(id, workerId);
  const [status] = await finishSteps(env.db.pool, workerId, [poll(subject, id, summary, result)]);
  expect(status).toBe('PROCESSING');
}

async function statusEntries(integrationRequestId: string) {
  return env.db.prisma.auditLog.findMany({
    where: { integrationRequestId, action: 'deletion.status_checked' },
    orderBy: { id: 'asc' },
    select: { summary: true, repeatCount: true, createdAt: true, lastRepeatedAt: true, details: true },
  });
}

describe('identical status polls fold into one audit entry', () => {
  it('counts N identical polls on one entry that keeps the first and the last time', async () => {
    const subject = await request();
    for (let i = 0; i < 5; i++) await polled(subject, subject.crm, "Status 'queued'");
    const entries = await statusEntries(subject.crm);
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(entry!.repeatCount).toBe(5);
    expect(entry!.lastRepeatedAt!.getTime()).toBeGreaterThan(entry!.createdAt.getTime());
    // The entry keeps what the first poll recorded.
    expect((entry!.details as { result: string }).result).toBe('pending');
  });

  it('starts a new entry when the outcome changes, and never folds into an older one', async () => {
    const subject = await request();
    await polled(subject, subject.crm, "Status 'queued'");
    await polled(subject, subject.crm, "Status 'queued'");
    await polled(subject, subject.crm, "Status 'running'");
    await polled(subject, subject.crm, "Status 'running'");
    await polled(subject, subject.crm, "Status 'running'", 'w1', 'retry');
    await polled(subject, subject.crm, "Status 'queued'");
    const entries = await statusEntries(subject.crm);
    expect(entries.map((e) => [e.summary, e.repeatCount, (e.details as { result: string }).result])).toEqual([
      ["Status 'queued'", 2, 'pending'],
      ["Status 'running'", 2, 'pending'],
      ["Status 'running'", 1, 'retry'],
      ["Status 'queued'", 1, 'pending'],
    ]);
    expect(entries[3]!.lastRepeatedAt).toBeNull();
  });

  it('folds into entries already sealed in the hash chain, which still verifies', async () => {
    const subject = await request();
    await polled(subject, subject.crm, "Status 'queued'");
    await sealAuditChain(env.db.prisma);
    await polled(subject, subject.crm, "Status 'queued'");
    await polled(subject, subject.crm, "Status 'queued'");
    await polled(subject, subject.crm, "Status 'done soon'");
    await sealAuditChain(env.db.prisma);
    expect((await statusEntries(subject.crm)).map((e) => e.repeatCount)).toEqual([3, 1]);
    const report = await verifyAuditChain(env.db.prisma, { organizationId: subject.organizationId });
    expect(report).toMatchObject({ ok: true, breaks: [], unsealedEntries: 0 });
  });

  it('refuses to lower a count: the database guard lets it only grow', async () => {
    const subject = await request();
    await polled(subject, subject.crm, "Status 'queued'");
    await polled(subject, subject.crm, "Status 'queued'");
    await expect(
      env.db.pool.query(`UPDATE "AuditLog" SET "repeatCount" = 1 WHERE "integrationRequestId" = $1`, [subject.crm]),
    ).rejects.toThrow(/can only count more repeats/);
    await expect(
      env.db.pool.query(`UPDATE "AuditLog" SET "lastRepeatedAt" = NULL WHERE "integrationRequestId" = $1`, [
        subject.crm,
      ]),
    ).rejects.toThrow(/can only count more repeats/);
  });

  it('folds each integration on its own while two workers poll the same request at once', async () => {
    const subject = await request();
    const rounds = 6;
    for (let i = 0; i < rounds; i++)
      await Promise.all([
        polled(subject, subject.crm, "Status 'queued'", 'w1'),
        polled(subject, subject.billing, "Status 'queued'", 'w2'),
      ]);
    for (const id of [subject.crm, subject.billing]) {
      const entries = await statusEntries(id);
      expect(entries.map((e) => e.repeatCount)).toEqual([rounds]);
    }
    await sealAuditChain(env.db.prisma);
    expect((await verifyAuditChain(env.db.prisma, { organizationId: subject.organizationId })).ok).toBe(true);
  });
});
