import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDetails } from '../../services/audit/recorded-exchanges';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { recountLegacyDeadlines } from './recount-deadlines';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A request as the service wrote it before deadlines counted calendar days: receipt + N × 24
 * hours, rule 1. (Rows are set back to that state directly: the old code is gone.)
 */
async function legacy(id: string, fields: { dueAt: Date; receiptConfirmBy?: Date | null; status?: string }) {
  await env.deps.prisma.$executeRaw`
    UPDATE "DeletionRequest"
       SET "deadlineRule" = 1, "dueAt" = ${fields.dueAt}, "receiptConfirmBy" = ${fields.receiptConfirmBy ?? null},
           status = ${fields.status ?? 'PENDING'}::"RequestStatus"
     WHERE id = ${id}`;
}

describe('deadlines counted by an older rule', () => {
  it('are counted again on calendar days for open requests only, audited, once', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
    });
    await caller.deadlines.setTimeZone({ timeZone: 'America/Los_Angeles' });
    const create = async (identifier: string, regulation: string, receivedAt: string) => {
      const answer = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
        body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier, regulation, receivedAt }),
      });
      expect(answer.status).toBe(201);
      return (await answer.json()) as { id: string; dueAt: string; receiptConfirmBy: string | null };
    };
    // Received 31 Jan 2025 23:30 in California: the old rule gave 18 Mar 00:30 PDT (45 × 24 h
    // across the spring change), the law the end of 17 Mar there.
    const receivedAt = '2025-02-01T07:30:00.000Z';
    const open = await create('recount-open@example.org', 'CCPA', receivedAt);
    const done = await create('recount-done@example.org', 'CCPA', receivedAt);
    const oldDue = new Date(Date.parse(receivedAt) + 45 * DAY);
    const oldReceipt = new Date(Date.parse(open.receiptConfirmBy!) + HOUR);
    await legacy(open.id, { dueAt: oldDue, receiptConfirmBy: oldReceipt });
    await legacy(done.id, { dueAt: oldDue, receiptConfirmBy: oldReceipt, status: 'SUCCESS' });

    const first = await recountLegacyDeadlines(env.deps.prisma);
    expect(first.recounted).toBeGreaterThanOrEqual(1);

    const rows = await env.deps.prisma.deletionRequest.findMany({
      where: { id: { in: [open.id, done.id] } },
      select: { id: true, dueAt: true, receiptConfirmBy: true, deadlineRule: true },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    // The open one now ends with 17 March in California (PDT: 18 Mar 06:59:59.999Z).
    expect(byId.get(open.id)!.dueAt!.toISOString()).toBe(open.dueAt);
    expect(byId.get(open.id)!.dueAt!.toISOString()).toBe('2025-03-18T06:59:59.999Z');
    expect(byId.get(open.id)!.receiptConfirmBy!.toISOString()).toBe(open.receiptConfirmBy);
    // The fulfilled one keeps what it was given.
    expect(byId.get(done.id)!.dueAt!.toISOString()).toBe(oldDue.toISOString());
    expect([...byId.values()].every((r) => r.deadlineRule === 2)).toBe(true);

    const audit = await env.deps.prisma.auditLog.findMany({
      where: { action: 'request.deadline_recounted', deletionRequestId: { in: [open.id, done.id] } },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ deletionRequestId: open.id, actorType: 'system' });
    expect(recordedDetails(audit[0]!.details, audit[0]!.exchanges)).toMatchObject({
      timeZone: 'America/Los_Angeles',
      previousDueAt: oldDue.toISOString(),
      dueAt: '2025-03-18T06:59:59.999Z',
    });
    expect(audit[0]!.summary).not.toContain('recount-open');

    // Once: a second pass reads nothing and writes nothing.
    expect(await recountLegacyDeadlines(env.deps.prisma)).toEqual({ read: 0, recounted: 0 });
  });

  it('counts an extended deadline as extended and keeps a confirmed receipt as measured', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
    });
    await caller.deadlines.setTimeZone({ timeZone: 'Europe/Berlin' });
    const answer = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
      // 31 May 2025 00:30 in Berlin.
      body: JSON.stringify({
        workspaceApiKey: org.workspaceApiKey,
        identifier: 'recount-extended@example.org',
        regulation: 'GDPR',
        receivedAt: '2025-05-30T22:30:00.000Z',
      }),
    });
    const created = (await answer.json()) as { id: string };
    await env.deps.prisma.$executeRaw`
      UPDATE "DeletionRequest" SET "deadlineRule" = 1, "dueAt" = '2025-08-30T22:30:00Z', "dueExtendedAt" = '2025-06-10T00:00:00Z'
       WHERE id = ${created.id}`;
    await recountLegacyDeadlines(env.deps.prisma);
    const row = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: created.id } });
    // Three months from 31 May in Berlin: the end of 31 August there.
    expect(row.dueAt!.toISOString()).toBe('2025-08-31T21:59:59.999Z');
    expect(row.receiptConfirmBy).toBeNull();
  });
});
