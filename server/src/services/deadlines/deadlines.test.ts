import { maskIdentifier } from '@shared/mask-identifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDetails } from '../audit/recorded-exchanges';
import { expectError, restClient } from '../../test/rest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { createDeletionRequest as createInPipeline } from '../../pipeline/commands/create';
import { searchDeletionRequests } from '../dashboard/search-deletion-requests';
import { getOverview } from '../dashboard/get-overview';
import { extendDeadline } from '../../pipeline/commands/extend-deadline';
import { recordPastCompletions } from '../../pipeline/testing/completion-history';

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'deadlines');
  // No worker runs here: requests stay queued for their one integration.
  await callerFor(env.deps, { pat: org.pat }).caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;
const create = (identifier: string, now: Date, regulation?: string) =>
  createInPipeline(env.deps, org.actor, { workspace: { id: org.workspace.id }, identifier, regulation }, now).then(
    (r) => r.deletionRequest,
  );

describe('deadlines on create', () => {
  it('GDPR by default: one calendar month, clamped at the month end', async () => {
    const request = await create('jan31@example.com', new Date('2026-01-31T09:00:00.000Z'));
    expect(request).toMatchObject({ regulation: 'GDPR', dueAt: '2026-02-28T23:59:59.999Z', dueExtendedAt: null });
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({
      where: { id: request.id },
      select: { dueAt: true, regulation: true },
    });
    expect(stored).toEqual({ dueAt: new Date('2026-02-28T23:59:59.999Z'), regulation: 'GDPR' });
  });

  it('a per-request override, the workspace choice and custom policies; anything else is a 400 over REST', async () => {
    expect((await create('ccpa@example.com', new Date('2026-01-31T09:00:00.000Z'), 'CCPA')).dueAt).toBe(
      '2026-03-17T23:59:59.999Z',
    );
    await owner().deadlines.createPolicy({ name: 'LGPD', days: 15, extensionDays: 0 });
    await owner().deadlines.setWorkspaceRegulation({ workspaceId: org.workspace.id, regulation: 'LGPD' });
    const viaWorkspace = await create('lgpd@example.com', new Date('2026-12-20T00:00:00.000Z'));
    expect(viaWorkspace).toMatchObject({ regulation: 'LGPD', dueAt: '2027-01-04T23:59:59.999Z' });
    await owner().deadlines.setWorkspaceRegulation({ workspaceId: org.workspace.id, regulation: null });
    await expect(
      owner().deadlines.deletePolicy({ policyId: (await owner().deadlines.regulations()).policies[0]!.id }),
    ).resolves.toEqual({ ok: true });

    const post = (body: object) =>
      fetch(`${server.baseUrl}/api/public/deletion-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
        body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier: 'rest@example.com', ...body }),
      });
    const before = await env.deps.prisma.deletionRequest.count();
    const bad = await post({ regulation: 'HIPAA' });
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(body.message).toContain('"GDPR", "CCPA"');
    expect(await env.deps.prisma.deletionRequest.count()).toBe(before);
    const ok = await post({ regulation: 'CCPA' });
    expect(ok.status).toBe(201);
    const created = await ok.json();
    expect(created.regulation).toBe('CCPA');
    // The end of the 45th day after the day it was created (the organization's zone: UTC).
    const fortyFiveDaysOn = new Date(new Date(created.createdAt).getTime() + 45 * 86_400_000);
    fortyFiveDaysOn.setUTCHours(23, 59, 59, 999);
    expect(created.dueAt).toBe(fortyFiveDaysOn.toISOString());
    const listed = await (
      await fetch(`${server.baseUrl}/api/public/deletion-requests/organization?limit=100`, {
        headers: { 'x-api-key': org.pat },
      })
    ).json();
    expect(listed.find((r: { id: string }) => r.id === created.id)).toMatchObject({
      id: created.id,
      regulation: 'CCPA',
      dueAt: created.dueAt,
    });
  });

  it('runs from when the request was received, when that was before it was entered; extended from then too', async () => {
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${server.baseUrl}/api/public/deletion-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': org.pat, ...headers },
        body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier: 'by-mail@example.com', ...body }),
      });
    // Received by email ten days ago, entered now: a GDPR month from the email, not from today.
    const receivedAt = new Date(Date.now() - 10 * 86_400_000);
    receivedAt.setUTCHours(9, 0, 0, 0);
    const answer = await post({ receivedAt: receivedAt.toISOString() }, { 'idempotency-key': 'by-mail-1' });
    expect(answer.status).toBe(201);
    const created = await answer.json();
    const monthOn = new Date(receivedAt);
    monthOn.setUTCHours(23, 59, 59, 999); // to the end of the day (the organization's zone: UTC)
    monthOn.setUTCMonth(monthOn.getUTCMonth() + 1);
    if (monthOn.getUTCDate() !== receivedAt.getUTCDate()) monthOn.setUTCDate(0); // clamped at the month's end
    expect(created).toMatchObject({ receivedAt: receivedAt.toISOString(), dueAt: monthOn.toISOString() });
    expect(created.createdAt).not.toBe(created.receivedAt);
    const audit = await env.deps.prisma.auditLog.findFirstOrThrow({
      where: { deletionRequestId: created.id, action: 'request.created' },
    });
    expect(recordedDetails(audit.details, audit.exchanges)).toMatchObject({ receivedAt: receivedAt.toISOString() });
    // A replay with another time of receipt is another request body.
    const replay = await post(
      { receivedAt: new Date(receivedAt.getTime() - 86_400_000).toISOString() },
      {
        'idempotency-key': 'by-mail-1',
      },
    );
    expect(replay.status).toBe(422);
    // The extension counts from the receipt too (GDPR: three months from it in all).
    const extended = await owner().deadlines.extend({
      deletionRequestId: created.id,
      reason: 'Several archived mailboxes have to be restored first',
    });
    const threeMonthsOn = new Date(receivedAt);
    threeMonthsOn.setUTCHours(23, 59, 59, 999);
    threeMonthsOn.setUTCMonth(threeMonthsOn.getUTCMonth() + 3);
    if (threeMonthsOn.getUTCDate() !== receivedAt.getUTCDate()) threeMonthsOn.setUTCDate(0);
    expect(extended.dueAt).toBe(threeMonthsOn.toISOString());

    // A date alone is the start of that day in the organization's time zone (UTC here); the future, a day that does not exist, or prose are a 400.
    const day = receivedAt.toISOString().slice(0, 10);
    const byDay = await (await post({ identifier: 'by-day@example.com', receivedAt: day })).json();
    expect(byDay.receivedAt).toBe(`${day}T00:00:00.000Z`);
    const before = await env.deps.prisma.deletionRequest.count();
    for (const receivedAt of [new Date(Date.now() + 86_400_000).toISOString(), '2026-02-30', 'last Tuesday']) {
      const refused = await post({ identifier: 'never@example.com', receivedAt });
      expect(refused.status).toBe(400);
      expect((await refused.json()).code).toBe('BAD_REQUEST');
    }
    expect(await env.deps.prisma.deletionRequest.count()).toBe(before);
    // Without one, it was received when it was created.
    const now = await (await post({ identifier: 'now@example.com' })).json();
    expect(now.receivedAt).toBe(now.createdAt);
  });
});

describe('extensions', () => {
  it('GDPR: two further months from receipt, once, audited with the reason', async () => {
    const request = await create('extend@example.com', new Date('2026-01-31T09:00:00.000Z'));
    const extendedAt = new Date('2026-02-20T12:00:00.000Z');
    const reason = 'Complex request spanning several archived systems';
    const result = await extendDeadline(
      env.deps.prisma,
      org.actor,
      { deletionRequestId: request.id, reason },
      extendedAt,
    );
    expect(result).toMatchObject({
      dueAt: '2026-04-30T23:59:59.999Z',
      dueExtendedAt: extendedAt.toISOString(),
      regulation: 'GDPR',
    });
    await expect(
      extendDeadline(env.deps.prisma, org.actor, { deletionRequestId: request.id, reason }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    const audit = await env.deps.prisma.auditLog.findFirstOrThrow({
      where: { deletionRequestId: request.id, action: 'request.deadline_extended' },
    });
    expect(recordedDetails(audit.details, audit.exchanges)).toMatchObject({
      reason,
      previousDueAt: '2026-02-28T23:59:59.999Z',
      dueAt: '2026-04-30T23:59:59.999Z',
    });
    expect(audit.actorId).toBe(org.user.id);
  });

  it('CCPA: 45 more days; a reason is required', async () => {
    // Received ten days ago: within its first 45 days.
    const receivedAt = new Date(Date.now() - 10 * 86_400_000);
    const request = await create('extend-ccpa@example.com', receivedAt, 'CCPA');
    await expect(owner().deadlines.extend({ deletionRequestId: request.id, reason: 'short' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const result = await owner().deadlines.extend({
      deletionRequestId: request.id,
      reason: 'Identity verification still pending with the subject',
    });
    const ninetyDaysOn = new Date(receivedAt.getTime() + 90 * 86_400_000);
    ninetyDaysOn.setUTCHours(23, 59, 59, 999);
    expect(result.dueAt).toBe(ninetyDaysOn.toISOString());
  });

  it('a FAILED or ERROR request is still unfulfilled and can be extended while it is retried; a SUCCESS one cannot', async () => {
    const reason = 'The CRM is being restored; the deletion will be retried';
    for (const [status, allowed] of [
      ['FAILED', true],
      ['ERROR', true],
      ['SUCCESS', false],
      ['CANCELED', false],
    ] as const) {
      const request = await create(`ended-${status}@example.com`, new Date(Date.now() - 86_400_000));
      await env.deps.prisma.deletionRequest.update({ where: { id: request.id }, data: { status } });
      const extended = extendDeadline(env.deps.prisma, org.actor, { deletionRequestId: request.id, reason });
      if (allowed) await expect(extended).resolves.toMatchObject({ dueExtendedAt: expect.any(String) });
      else await expect(extended).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(status) });
    }
  });

  it('a deadline that has passed can no longer be extended: the missed date stays on record', async () => {
    const request = await create('missed@example.com', new Date('2026-01-31T09:00:00.000Z'));
    const reason = 'Complex request spanning several archived systems';
    await expect(
      extendDeadline(
        env.deps.prisma,
        org.actor,
        { deletionRequestId: request.id, reason },
        new Date('2026-03-01T00:00:00.000Z'),
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('passed on 2026-02-28') });
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(stored).toMatchObject({ dueExtendedAt: null, dueAt: new Date('2026-02-28T23:59:59.999Z') });
  });

  it('a token limited to another workspace cannot extend a request of this one', async () => {
    const request = await create('other-ws@example.com', new Date(Date.now() - 86_400_000));
    const elsewhere = await owner().workspaces.create({ name: 'Extensions elsewhere' });
    const limited = await owner().tokens.create({
      name: 'elsewhere',
      scopes: ['requests:write'],
      workspaceIds: [elsewhere.id],
    });
    await expect(
      callerFor(env.deps, { pat: limited.token }).caller.deadlines.extend({
        deletionRequestId: request.id,
        reason: 'Identity verification still pending with the subject',
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(
      (await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } })).dueExtendedAt,
    ).toBeNull();
  });
});

describe('extending over REST with an Idempotency-Key', () => {
  const extendPath = (id: string) => `/api/public/deletion-requests/${id}/extend-deadline`;
  const extensions = (id: string) =>
    env.deps.prisma.auditLog.count({ where: { deletionRequestId: id, action: 'request.deadline_extended' } });

  it('the same key and body twice extends once and answers the first answer again; another body with the key is a 422', async () => {
    const api = restClient(server.baseUrl);
    const request = await create('extend-keyed@example.com', new Date(Date.now() - 86_400_000));
    const body = { reason: 'Archived mailboxes must be restored before erasure' };
    const headers = { 'X-API-Key': org.pat, 'Idempotency-Key': 'extend-keyed-1' };
    const first = await api.post(extendPath(request.id), body, headers);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const answer = await first.json();
    expect(answer).toMatchObject({
      deletionRequestId: request.id,
      regulation: 'GDPR',
      dueAt: expect.any(String),
      dueExtensionReason: body.reason,
    });
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({
      where: { id: request.id },
      select: { dueAt: true, dueExtendedAt: true },
    });

    const replay = await api.post(extendPath(request.id), body, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(answer);
    expect(await extensions(request.id)).toBe(1);
    expect(
      await env.deps.prisma.deletionRequest.findUniqueOrThrow({
        where: { id: request.id },
        select: { dueAt: true, dueExtendedAt: true },
      }),
    ).toEqual(stored);

    // Without the key a second extension is refused (once per request), so the replay above did not act.
    await expectError(await api.post(extendPath(request.id), body, { 'X-API-Key': org.pat }), 409, 'CONFLICT');
    // The same key with another body, or on another request, is refused and changes nothing.
    await expectError(
      await api.post(extendPath(request.id), { reason: 'Another reason given to the subject' }, headers),
      422,
      'UNPROCESSABLE_CONTENT',
    );
    const another = await create('extend-keyed-other@example.com', new Date(Date.now() - 86_400_000));
    await expectError(await api.post(extendPath(another.id), body, headers), 422, 'UNPROCESSABLE_CONTENT');
    expect(await extensions(another.id)).toBe(0);
  });
});

describe('the list, sorted and filtered by deadline', () => {
  it('"overdue" and "due in 7 days" follow the injected clock; sort by nearest deadline pages with a cursor', async () => {
    const now = new Date('2026-03-10T00:00:00.000Z');
    const search = (input: object) =>
      searchDeletionRequests(
        env.deps.prisma,
        env.deps.keyring,
        org.actor,
        { filter: {}, sort: 'created', limit: 25, ...input } as never,
        now,
      );
    const soon = await create('soon@example.com', new Date('2026-02-13T00:00:00.000Z'));
    const overdue = await search({ filter: { due: 'overdue' } });
    expect(overdue.items.map((r) => r.maskedIdentifier)).toEqual(
      expect.arrayContaining([maskIdentifier('jan31@example.com')]),
    );
    expect(overdue.items.map((r) => r.id)).not.toContain(soon.id);
    const due7 = await search({ filter: { due: 'due7' } });
    expect(due7.items.map((r) => r.id)).toEqual([soon.id]);

    const first = await search({ sort: 'due', limit: 2 });
    const second = await search({ sort: 'due', limit: 100, cursor: first.nextCursor });
    const all = [...first.items, ...second.items];
    // Open requests first by deadline, then the finished ones by theirs.
    const finished = (status: string) => status === 'SUCCESS' || status === 'CANCELED';
    const split = all.findIndex((r) => finished(r.status));
    if (split >= 0) expect(all.slice(split).every((r) => finished(r.status))).toBe(true);
    for (const part of split >= 0 ? [all.slice(0, split), all.slice(split)] : [all]) {
      const dues = part.map((r) => r.dueAt ?? '9999');
      expect(dues).toEqual([...dues].sort());
    }
    expect(new Set(all.map((r) => r.id)).size).toBe(
      await env.deps.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } }),
    );
  });

  it('the overview counts overdue and due-this-week requests and projects the ones at risk', async () => {
    const now = new Date('2026-03-10T00:00:00.000Z');
    const overview = await getOverview(env.deps.prisma, env.deps.keyring, org.actor, { days: 7, timeZone: 'UTC' }, now);
    expect(overview.overdueTotal).toBeGreaterThan(0);
    expect(overview.dueThisWeekTotal).toBe(1);
    // Masked like every list of the dashboard: the full identifier is never in the answer.
    expect(overview.dueThisWeek[0]?.maskedIdentifier).toBe(maskIdentifier('soon@example.com'));
    expect(JSON.stringify(overview)).not.toContain('soon@example.com');

    // Earlier deletions through the integration took 20 days each: its median.
    const integration = await env.deps.prisma.integration.findFirstOrThrow({
      where: { workspaceId: org.workspace.id },
    });
    await recordPastCompletions(env.deps, org.actor, org.workspace.id, {
      days: 20,
      createdAt: new Date('2026-01-01T00:00:00.000Z'),
    });
    await owner().deadlines.createPolicy({ name: 'Ten days', days: 10, extensionDays: 0 });
    const risky = await create('risky@example.com', new Date('2026-03-05T00:00:00.000Z'), 'Ten days');
    const safe = await create('safe@example.com', new Date('2026-03-05T00:00:00.000Z'));
    const later = await getOverview(env.deps.prisma, env.deps.keyring, org.actor, { days: 7, timeZone: 'UTC' }, now);
    const projected = later.atRisk.find((r) => r.id === risky.id);
    expect(projected?.riskReasons).toEqual([`${integration.name} takes about 20 days: at risk`]);
    expect(later.atRisk.map((r) => r.id)).not.toContain(safe.id);
    const detail = await owner().dashboard.requestDetail({ deletionRequestId: risky.id });
    expect(detail).toMatchObject({ regulation: 'Ten days', dueAt: '2026-03-15T23:59:59.999Z' });
  });
});
