import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmReceipt } from '../../pipeline/commands/confirm-receipt';
import { createDeletionRequest } from '../../pipeline/commands/create';
import { extendDeadline } from '../../pipeline/commands/extend-deadline';
import { buildDigest } from '../notifications/digest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';

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

/** An organization in a time zone, with a workspace whose requests stay queued (no worker runs). */
async function organizationIn(timeZone: string) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
  await caller.deadlines.setTimeZone({ timeZone });
  const create = async (identifier: string, regulation: string, receivedAt: string) => {
    const answer = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
      body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier, regulation, receivedAt }),
    });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; receivedAt: string; dueAt: string; receiptConfirmBy: string | null };
  };
  return { org, caller, create };
}

describe("an organization's time zone", () => {
  it('is an IANA name: anything else is a 400 naming the field, and nothing changes', async () => {
    const { caller } = await organizationIn('Europe/Berlin');
    for (const timeZone of ['CEST', '+02:00', 'Mars/Olympus', ''])
      await expect(caller.deadlines.setTimeZone({ timeZone })).rejects.toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('timeZone'),
      });
    expect((await caller.deadlines.regulations()).timeZone).toBe('Europe/Berlin');
    // Spelled in another case, it is stored as the zone's own name.
    await caller.deadlines.setTimeZone({ timeZone: 'asia/tokyo' });
    expect((await caller.deadlines.regulations()).timeZone).toBe('Asia/Tokyo');
    // Over the dashboard's HTTP channel too: a 400 with the field in the body.
    const org = await seedOrganization(env.deps);
    const answer = await fetch(`${server.baseUrl}/trpc/deadlines.setTimeZone`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
      body: JSON.stringify({ timeZone: 'Pacific Time' }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('timeZone');
  });

  it('California: a date alone is that day there; CCPA counts 45 days and 10 business days there', async () => {
    const { org, create } = await organizationIn('America/Los_Angeles');
    const request = await create('ca-date@example.org', 'CCPA', '2025-11-24');
    expect(request).toMatchObject({
      receivedAt: new Date('2025-11-24T00:00:00-08:00').toISOString(),
      // 24 November + 45 days: the end of 8 January there.
      dueAt: new Date('2026-01-08T23:59:59.999-08:00').toISOString(),
      // Ten business days after Monday 24 November: the end of Monday 8 December there.
      receiptConfirmBy: new Date('2025-12-08T23:59:59.999-08:00').toISOString(),
    });
    const confirmed = await confirmReceipt(env.deps.prisma, org.actor, {
      deletionRequestId: request.id,
      confirmedAt: new Date('2025-12-08T16:00:00-08:00'),
    });
    expect(confirmed.onTime).toBe(true);
    // Received late on 31 January: the 45th day is 17 March, across the spring change of clocks.
    const january = await create('ca-january@example.org', 'CCPA', '2025-01-31T23:30:00-08:00');
    expect(january.dueAt).toBe(new Date('2025-03-17T23:59:59.999-07:00').toISOString());
    // Received at 00:30 on Friday 24 October: confirmed on Friday 7 November is on time, across the autumn change.
    const october = await create('ca-october@example.org', 'CCPA', '2025-10-24T00:30:00-07:00');
    expect(october.receiptConfirmBy).toBe(new Date('2025-11-07T23:59:59.999-08:00').toISOString());
    const onTheDay = await confirmReceipt(env.deps.prisma, org.actor, {
      deletionRequestId: october.id,
      confirmedAt: new Date('2025-11-07T10:00:00-08:00'),
    });
    expect(onTheDay.onTime).toBe(true);
  });

  it('Berlin and Tokyo: the GDPR month ends at the end of the last day there, and so does its extension', async () => {
    const berlin = await organizationIn('Europe/Berlin');
    const may = await berlin.create('berlin-may@example.org', 'GDPR', '2025-05-31T00:30:00+02:00');
    expect(may.dueAt).toBe(new Date('2025-06-30T23:59:59.999+02:00').toISOString());
    const extended = await extendDeadline(
      env.deps.prisma,
      berlin.org.actor,
      { deletionRequestId: may.id, reason: 'Archived mailboxes have to be restored first' },
      new Date('2025-06-10T12:00:00Z'),
    );
    expect(extended.dueAt).toBe(new Date('2025-08-31T23:59:59.999+02:00').toISOString());
    // Saturday before the autumn change: CCPA's 45 days end on 9 December there.
    const autumn = await berlin.create('berlin-autumn@example.org', 'CCPA', '2025-10-25');
    expect(autumn.dueAt).toBe(new Date('2025-12-09T23:59:59.999+01:00').toISOString());

    const tokyo = await organizationIn('Asia/Tokyo');
    const march = await tokyo.create('tokyo-march@example.org', 'GDPR', '2025-03-31');
    expect(march).toMatchObject({
      receivedAt: new Date('2025-03-31T00:00:00+09:00').toISOString(),
      dueAt: new Date('2025-04-30T23:59:59.999+09:00').toISOString(),
    });
  });

  it('the daily digest names each deadline by its day there (a receipt by its day in California)', async () => {
    const { org, create } = await organizationIn('America/Los_Angeles');
    const request = await create('digest@example.org', 'CCPA', '2025-11-24');
    const digest = await buildDigest({ ...env.deps }, org.organization.id, new Date('2026-01-10T12:00:00-08:00'));
    expect(digest?.text).toContain(`- ${request.id} (due 2026-01-08, 1 day(s) late)`);
    expect(digest?.text).toContain(`- ${request.id} (due 2025-12-08, late)`);
  });

  it('requests already stored keep their deadlines when the zone changes', async () => {
    const { org, caller } = await organizationIn('UTC');
    const { deletionRequest } = await createDeletionRequest(
      env.deps,
      org.actor,
      { workspace: { id: org.workspace.id }, identifier: 'kept@example.org', regulation: 'GDPR' },
      new Date('2025-05-31T00:30:00Z'),
    );
    expect(deletionRequest.dueAt).toBe('2025-06-30T23:59:59.999Z');
    await caller.deadlines.setTimeZone({ timeZone: 'Asia/Tokyo' });
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: deletionRequest.id } });
    expect(stored.dueAt?.toISOString()).toBe('2025-06-30T23:59:59.999Z');
    const audit = await env.deps.prisma.auditLog.findFirst({
      where: { organizationId: org.organization.id, action: 'organization.time_zone_changed' },
      orderBy: { id: 'desc' },
    });
    expect(audit?.summary).toBe('Deadlines counted in the time zone Asia/Tokyo');
  });
});
