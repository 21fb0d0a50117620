import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { StepFinisher } from './finisher';
import { finishSteps, type FinishingStep } from '../store/finish';

let env: TestEnv;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

/** `count` deletion requests fanned out to two webhook integrations; no worker runs, so they stay STAGING. */
async function requests(count: number) {
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
  const created = [];
  for (let i = 0; i < count; i++) {
    created.push(
      await caller.deletionRequests.createInWorkspace({
        workspaceId: org.workspace.id,
        identifier: `subject-${i}@example.com`,
      }),
    );
  }
  return { org, created };
}

/** Leases integration requests to `workerId` as a claim would. */
async function lease(ids: string[], workerId: string) {
  await env.db.pool.query(
    `UPDATE "IntegrationRequest" SET "lockedBy" = $2, "lockedUntil" = now() + interval '1 minute' WHERE id = ANY($1)`,
    [ids, workerId],
  );
}

function succeeded(
  id: string,
  deletionRequestId: string,
  organizationId: string,
  completedAt = new Date(),
): FinishingStep {
  return {
    id,
    deletionRequestId,
    status: 'SUCCESS',
    data: { status: 'SUCCESS', completedAt, nextAttemptAt: null, lastError: null },
    entries: [
      {
        organizationId,
        deletionRequestId,
        integrationRequestId: id,
        action: 'deletion.requested',
        outcome: 'SUCCESS',
        summary: 'Attempt 1: done',
        details: { attempt: 1 },
      },
      {
        organizationId,
        deletionRequestId,
        integrationRequestId: id,
        action: 'deletion.completed',
        outcome: 'SUCCESS',
        summary: 'Completed with status SUCCESS',
      },
    ],
  };
}

async function auditOf(deletionRequestId: string) {
  const { rows } = await env.db.pool.query<{ action: string; integrationRequestId: string | null; details: unknown }>(
    `SELECT action, "integrationRequestId", details FROM "AuditLog" WHERE "deletionRequestId" = $1 ORDER BY id`,
    [deletionRequestId],
  );
  return rows;
}

describe('finishing steps', () => {
  it('writes both steps of one request in one batch, their audit entries in order, and the roll-up once', async () => {
    const { org, created } = await requests(1);
    const request = created[0]!;
    const [first, second] = request.integrationRequests!;
    await lease([first!.id, second!.id], 'w1');
    const earlier = new Date(Date.now() - 5_000);
    const later = new Date(Date.now() - 1_000);
    const results = await finishSteps(env.db.pool, 'w1', [
      succeeded(first!.id, request.id, org.organization.id, later),
      succeeded(second!.id, request.id, org.organization.id, earlier),
    ]);
    expect(results).toEqual(['SUCCESS', 'SUCCESS']);

    const row = await env.db.prisma.deletionRequest.findUniqueOrThrow({
      where: { id: request.id },
      include: { integrationRequests: true },
    });
    expect(row.status).toBe('SUCCESS');
    // The request completed when its last integration request did.
    expect(row.completedAt?.toISOString()).toBe(later.toISOString());
    for (const ir of row.integrationRequests) {
      expect([ir.status, ir.lockedBy, ir.lockedUntil, ir.nextAttemptAt]).toEqual(['SUCCESS', null, null, null]);
    }
    const audit = await auditOf(request.id);
    expect(audit.map((a) => [a.action, a.integrationRequestId])).toEqual([
      ['request.created', null],
      ['deletion.requested', first!.id],
      ['deletion.completed', first!.id],
      ['deletion.requested', second!.id],
      ['deletion.completed', second!.id],
      ['request.completed', null],
    ]);
    expect(audit[1]!.details).toEqual({ attempt: 1 });
    expect(audit[2]!.details).toBeNull();
  });

  it('leaves a step whose lease another worker holds untouched, and still writes the rest of the batch', async () => {
    const { org, created } = await requests(2);
    const [a, b] = created;
    const [a1, a2] = a!.integrationRequests!;
    const [b1, b2] = b!.integrationRequests!;
    await lease([a1!.id, a2!.id, b1!.id], 'w1');
    await lease([b2!.id], 'w2');
    const results = await finishSteps(env.db.pool, 'w1', [
      succeeded(a1!.id, a!.id, org.organization.id),
      succeeded(b2!.id, b!.id, org.organization.id),
      succeeded(a2!.id, a!.id, org.organization.id),
    ]);
    expect(results).toEqual(['SUCCESS', null, 'SUCCESS']);
    const rows = await env.db.prisma.integrationRequest.findMany({
      where: { id: { in: [b1!.id, b2!.id] } },
      orderBy: { createdAt: 'asc' },
    });
    expect(rows.find((r) => r.id === b2!.id)).toMatchObject({ status: 'STAGING', lockedBy: 'w2' });
    expect((await auditOf(b!.id)).map((x) => x.action)).toEqual(['request.created']);
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: a!.id } })).status).toBe('SUCCESS');
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: b!.id } })).status).toBe('STAGING');
  });

  it('sets only the columns a step changes: an accepted job keeps its attempts and gets its tracking id and next check', async () => {
    const { org, created } = await requests(1);
    const request = created[0]!;
    const [first] = request.integrationRequests!;
    await env.db.pool.query(
      `UPDATE "IntegrationRequest" SET attempts = 1, "lastError" = 'earlier error' WHERE id = $1`,
      [first!.id],
    );
    await lease([first!.id], 'w1');
    const nextCheck = new Date(Date.now() + 60_000);
    const [status] = await finishSteps(env.db.pool, 'w1', [
      {
        id: first!.id,
        deletionRequestId: request.id,
        status: 'PENDING',
        data: { status: 'PENDING', trackingId: 'job-42', lastError: null, nextAttemptAt: nextCheck },
        entries: [
          {
            organizationId: org.organization.id,
            deletionRequestId: request.id,
            integrationRequestId: first!.id,
            action: 'deletion.requested',
            outcome: 'PENDING',
            summary: 'Accepted',
          },
        ],
      },
    ]);
    expect(status).toBe('PENDING');
    const ir = await env.db.prisma.integrationRequest.findUniqueOrThrow({ where: { id: first!.id } });
    expect(ir).toMatchObject({
      status: 'PENDING',
      trackingId: 'job-42',
      lastError: null,
      attempts: 1,
      completedAt: null,
      lockedBy: null,
    });
    expect(ir.nextAttemptAt?.toISOString()).toBe(nextCheck.toISOString());
    // One child PENDING, one STAGING: the request is PENDING.
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } })).status).toBe(
      'PENDING',
    );
  });
});

describe('StepFinisher (group commit)', () => {
  /** The test pool, counting the transactions (connections taken) made through it. */
  function countingPool() {
    const counter = { connects: 0 };
    const pool = new Proxy(env.db.pool, {
      get(target, key) {
        if (key === 'connect') {
          return () => {
            counter.connects++;
            return target.connect();
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as pg.Pool;
    return { pool, counter };
  }

  it('writes the outcomes that arrive together in one transaction', async () => {
    const { org, created } = await requests(5);
    const ids = created.flatMap((r) => r.integrationRequests!.map((ir) => ({ id: ir.id, parent: r.id })));
    await lease(
      ids.map((x) => x.id),
      'w1',
    );
    const { pool, counter } = countingPool();
    const finisher = new StepFinisher(pool, 'w1');
    const results = await Promise.all(ids.map((x) => finisher.finish(succeeded(x.id, x.parent, org.organization.id))));
    expect(results).toEqual(ids.map(() => 'SUCCESS'));
    expect(counter.connects).toBe(1);
    const statuses = await env.db.prisma.deletionRequest.findMany({
      where: { id: { in: created.map((r) => r.id) } },
      select: { status: true },
    });
    expect(statuses.map((s) => s.status)).toEqual(created.map(() => 'SUCCESS'));
  });

  it('writes the others of a batch when one step cannot be written, and reports that one', async () => {
    const { org, created } = await requests(2);
    const [a, b] = created;
    const [a1] = a!.integrationRequests!;
    const [b1] = b!.integrationRequests!;
    await lease([a1!.id, b1!.id], 'w1');
    const finisher = new StepFinisher(env.db.pool, 'w1');
    const broken: FinishingStep = {
      ...succeeded(b1!.id, b!.id, org.organization.id),
      data: { status: 'NOT_A_STATUS' as never },
    };
    const [good, bad] = await Promise.allSettled([
      finisher.finish(succeeded(a1!.id, a!.id, org.organization.id)),
      finisher.finish(broken),
    ]);
    expect(good).toEqual({ status: 'fulfilled', value: 'SUCCESS' });
    expect(bad.status).toBe('rejected');
    const rows = await env.db.prisma.integrationRequest.findMany({ where: { id: { in: [a1!.id, b1!.id] } } });
    expect(rows.find((r) => r.id === a1!.id)?.status).toBe('SUCCESS');
    expect(rows.find((r) => r.id === b1!.id)).toMatchObject({ status: 'STAGING', lockedBy: 'w1' });
  });

  it('lets two workers finish sibling steps of the same requests at once without a deadlock', async () => {
    const { org, created } = await requests(12);
    const firsts = created.map((r) => ({ id: r.integrationRequests![0]!.id, parent: r.id }));
    const seconds = created.map((r) => ({ id: r.integrationRequests![1]!.id, parent: r.id }));
    await lease(
      firsts.map((x) => x.id),
      'w1',
    );
    await lease(
      seconds.map((x) => x.id),
      'w2',
    );
    // Batches of three over the same parents, in opposite orders within each batch, so that
    // both transactions want the same parent rows at the same time.
    const one = new StepFinisher(env.db.pool, 'w1', 3);
    const two = new StepFinisher(env.db.pool, 'w2', 3);
    const reversedInThrees = seconds.map((_, i) => seconds[i - (i % 3) + (2 - (i % 3))]!);
    const results = await Promise.all([
      ...firsts.map((x) => one.finish(succeeded(x.id, x.parent, org.organization.id))),
      ...reversedInThrees.map((x) => two.finish(succeeded(x.id, x.parent, org.organization.id))),
    ]);
    expect(results.every((r) => r === 'SUCCESS')).toBe(true);
    const rows = await env.db.prisma.deletionRequest.findMany({
      where: { id: { in: created.map((r) => r.id) } },
      select: { id: true, status: true },
    });
    expect(rows.map((r) => r.status)).toEqual(created.map(() => 'SUCCESS'));
    // Each request completed exactly once, whichever worker finished its last step.
    const { rows: completions } = await env.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "AuditLog" WHERE action = 'request.completed' AND "deletionRequestId" = ANY($1)`,
      [created.map((r) => r.id)],
    );
    expect(completions[0]!.n).toBe(12);
  });
});
