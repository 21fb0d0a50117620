import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../lib/ids';
import { createPersonalAccessToken } from '../../services/tokens/personal-access-tokens';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { createCallerFactory } from '../../trpc/init';
import { appRouter } from '../root';
import { REQUEST_STATUSES } from '@shared/status-values';
import type { Actor } from '../../services/auth/actor';
import { searchDeletionRequests } from '../../services/dashboard/search-deletion-requests';

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'acme');
  other = await seedOrganization(env.deps, 'globex');
  // No worker runs in this file: requests stay queued (STAGING) for their one integration.
  await callerFor(env.deps, { pat: org.pat }).caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
});
afterAll(() => env.close());

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;

describe('dashboard.searchRequests', () => {
  it('finds a request by its exact identifier only, and pages newest first', async () => {
    for (const identifier of ['a@example.com', 'b@example.com', 'c@example.com']) {
      await owner().deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
    }
    const exact = await owner().dashboard.searchRequests({ filter: { identifier: '  b@example.com ' } });
    expect(exact.items.map((r) => r.maskedIdentifier)).toEqual(['b***@example.com']);
    expect(exact.items[0]?.workspaceName).toBe('acme workspace');
    expect((await owner().dashboard.searchRequests({ filter: { identifier: 'b@example' } })).items).toEqual([]);

    const first = await owner().dashboard.searchRequests({ limit: 2 });
    expect(first.items.map((r) => r.maskedIdentifier)).toEqual(['c***@example.com', 'b***@example.com']);
    expect(first.nextCursor).toBeTruthy();
    const second = await owner().dashboard.searchRequests({ limit: 2, cursor: first.nextCursor });
    expect(second.items.map((r) => r.maskedIdentifier)).toEqual(['a***@example.com']);
    expect(second.nextCursor).toBeNull();
  });

  it('filters by status, creator and date range, and never shows another organization', async () => {
    const none = await owner().dashboard.searchRequests({ filter: { statuses: ['FAILED'] } });
    expect(none.items).toEqual([]);
    const mine = await owner().dashboard.searchRequests({
      filter: { createdByUserId: org.user.id, statuses: ['STAGING', 'SUCCESS'] },
    });
    expect(mine.items.length).toBe(3);
    const future = await owner().dashboard.searchRequests({
      filter: { createdFrom: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(future.items).toEqual([]);
    const foreign = await callerFor(env.deps, { pat: other.pat }).caller.dashboard.searchRequests({});
    expect(foreign.items).toEqual([]);
  });

  it('pages alike with no filter (the public list statement) and through the filters (the ORM), limited to workspaces too', async () => {
    const third = await seedOrganization(env.deps, 'initech');
    const caller = callerFor(env.deps, { pat: third.pat }).caller;
    await caller.integrations.create({
      workspaceId: third.workspace.id,
      name: 'CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
    });
    const second = await caller.workspaces.create({ name: 'initech second' });
    for (let i = 0; i < 8; i++)
      await caller.deletionRequests.createInWorkspace({
        workspaceId: i % 2 ? second.id : third.workspace.id,
        identifier: `paged-${i}@example.com`,
      });
    const everyStatus = [...REQUEST_STATUSES];
    const pages = async (actor: Actor, filter: object) => {
      const items: { id: string; workspaceName: string; integrationRequests?: unknown[] }[] = [];
      let cursor: string | null | undefined;
      do {
        const page = await searchDeletionRequests(env.deps.prisma, env.deps.keyring, actor, {
          filter,
          sort: 'created',
          limit: 3,
          cursor,
        } as never);
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return items;
    };
    const unfiltered = await pages(third.actor, {});
    expect(unfiltered).toHaveLength(8);
    // With each request's integration requests (the CRM is connected to the first workspace only).
    expect(unfiltered.map((r) => r.integrationRequests?.length).sort()).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(unfiltered).toEqual(await pages(third.actor, { statuses: everyStatus }));
    // Over tRPC, as the screen asks.
    expect((await caller.dashboard.searchRequests({ limit: 8 })).items).toEqual(unfiltered);

    const limited: Actor = { ...third.actor, workspaceIds: [second.id] };
    const theirs = await pages(limited, {});
    expect(theirs.map((r) => r.workspaceName)).toEqual(Array(4).fill('initech second'));
    expect(theirs).toEqual(await pages(limited, { statuses: everyStatus }));
    expect(await pages({ ...third.actor, workspaceIds: [] }, {})).toEqual([]);
  });

  it('rejects an end date before the start date, naming the field', async () => {
    await expect(
      owner().dashboard.searchRequests({
        filter: { createdFrom: '2026-02-01T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('identifiers masked, revealed one at a time with an audit entry', () => {
  it('masks identifiers in every dashboard read model; revealIdentifier shows one and audits it', async () => {
    const created = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'masked.person@example.com',
    });
    const search = await owner().dashboard.searchRequests({ filter: { identifier: 'masked.person@example.com' } });
    const overview = await owner().dashboard.overview({});
    const detail = await owner().dashboard.requestDetail({ deletionRequestId: created.id });
    for (const answer of [search, overview, detail]) expect(JSON.stringify(answer)).not.toContain('masked.person');
    expect(search.items[0]?.maskedIdentifier).toBe('m***@example.com');
    const before = await env.db.prisma.auditLog.count({
      where: { deletionRequestId: created.id, action: 'request.identifier_revealed' },
    });
    expect(before).toBe(0);
    expect(await owner().dashboard.revealIdentifier({ deletionRequestId: created.id })).toEqual({
      identifier: 'masked.person@example.com',
    });
    const entries = await env.db.prisma.auditLog.findMany({
      where: { deletionRequestId: created.id, action: 'request.identifier_revealed' },
    });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorId: org.user.id, organizationId: org.organization.id });
    expect(JSON.stringify([entries[0]?.summary, entries[0]?.details])).not.toContain('masked.person');
    await expect(
      callerFor(env.deps, { pat: other.pat }).caller.dashboard.revealIdentifier({ deletionRequestId: created.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a search by identifier sent as GET (it would be in the URL); POST carries it', async () => {
    const { ctx } = callerFor(env.deps, { pat: org.pat });
    const asGet = createCallerFactory(appRouter)({ ...ctx, method: 'GET' });
    await expect(asGet.dashboard.searchRequests({ filter: { identifier: 'a@example.com' } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect((await asGet.dashboard.searchRequests({})).items.length).toBeGreaterThan(0);
    // The count behind "select all matching" takes the same filter, and refuses it the same way.
    await expect(
      asGet.deletionRequests.countMatching({ filter: { identifier: 'a@example.com' } }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(asGet.deletionRequests.countMatching({ filter: {} })).resolves.toBeDefined();
  });
});

describe('dashboard.requestDetail', () => {
  it('returns the audit timeline, and "not found" across organizations', async () => {
    const created = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'detail@example.com',
    });
    const detail = await owner().dashboard.requestDetail({ deletionRequestId: created.id });
    expect(detail.maskedIdentifier).toBe('d***@example.com');
    expect(JSON.stringify(detail)).not.toContain('detail@example.com');
    expect(detail.createdWithToken).toBe(true);
    expect(detail.auditTrail.map((e) => e.action)).toContain('request.created');
    expect(detail.auditTrail[0]?.actorName).toBe('Owner of acme');
    await expect(
      callerFor(env.deps, { pat: other.pat }).caller.dashboard.requestDetail({ deletionRequestId: created.id }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('dashboard.overview', () => {
  it('counts the window by status and by day', async () => {
    const overview = await owner().dashboard.overview({ days: 7, timeZone: 'Europe/Paris' });
    expect(overview.perDay).toHaveLength(7);
    expect(overview.byStatus.STAGING).toBe(overview.total);
    expect(overview.perDay.at(-1)?.counts.STAGING).toBe(overview.total);
    expect(overview.openTotal).toBe(overview.total);
    await expect(owner().dashboard.overview({ days: 7, timeZone: 'Not/AZone' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});

describe('dashboard.overview days', () => {
  it("puts each request on its local day in the browser's time zone, even a zone the database does not know", async () => {
    const fresh = await seedOrganization(env.deps, 'initech');
    const { caller } = callerFor(env.deps, { pat: fresh.pat });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: fresh.workspace.id,
      identifier: 'tz@example.com',
    });
    // 18:20 UTC yesterday: 00:05 today in Kathmandu (UTC+05:45), 10:20 yesterday in Los Angeles.
    const today = new Date();
    const at = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 1, 18, 20));
    await env.deps.prisma.deletionRequest.update({ where: { id: created.id }, data: { createdAt: at } });
    const dayIn = (timeZone: string) =>
      new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
    expect(dayIn('Asia/Kathmandu')).not.toBe(dayIn('UTC'));
    // US/Pacific-New: an old alias the runtime's time-zone data knows and PostgreSQL's does not.
    for (const timeZone of ['Asia/Kathmandu', 'UTC', 'US/Pacific-New']) {
      const overview = await caller.dashboard.overview({ days: 7, timeZone });
      const days = overview.perDay.filter((d) => Object.values(d.counts).some((n) => n > 0)).map((d) => d.day);
      expect({ timeZone, days }).toEqual({ timeZone, days: [dayIn(timeZone)] });
    }
  });
});

describe('dashboard.auditLog', () => {
  it('filters by action, scope, actor, request id, workspace and date, and names the integration of each entry', async () => {
    const all = await owner().dashboard.auditLog({ limit: 100 });
    const withRequest = all.items.find((e) => e.deletionRequestId);
    expect(withRequest, 'the seeded organization has request entries').toBeDefined();
    const byRequest = await owner().dashboard.auditLog({
      limit: 100,
      filter: { deletionRequestId: withRequest!.deletionRequestId! },
    });
    expect(byRequest.items.length).toBeGreaterThan(0);
    expect(byRequest.items.every((e) => e.deletionRequestId === withRequest!.deletionRequestId)).toBe(true);
    const admin = await owner().dashboard.auditLog({ limit: 100, filter: { scope: 'admin' } });
    expect(admin.items.length).toBeGreaterThan(0);
    expect(admin.items.every((e) => e.deletionRequestId === null)).toBe(true);
    const actions = await owner().dashboard.auditLogActions();
    expect(actions).toContain(withRequest!.action);
    const oneAction = await owner().dashboard.auditLog({ limit: 100, filter: { actions: [withRequest!.action] } });
    expect(oneAction.items.every((e) => e.action === withRequest!.action)).toBe(true);
    const future = await owner().dashboard.auditLog({
      limit: 100,
      filter: { createdFrom: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(future.items).toEqual([]);
    const system = await owner().dashboard.auditLog({ limit: 100, filter: { actorId: 'SYSTEM' } });
    expect(system.items.every((e) => e.actorId === null)).toBe(true);
    // People's actions (the dashboard's default): every entry names a member, and together with the service's they are all.
    const people = await owner().dashboard.auditLog({ limit: 100, filter: { actorId: 'PEOPLE' } });
    expect(people.items.length).toBeGreaterThan(0);
    expect(people.items.every((e) => e.actorId !== null)).toBe(true);
    expect(people.items.length + system.items.length).toBe(all.items.length);
    const request = await env.deps.prisma.deletionRequest.findUniqueOrThrow({
      where: { id: withRequest!.deletionRequestId! },
      select: { workspaceId: true },
    });
    const inWorkspace = await owner().dashboard.auditLog({ limit: 100, filter: { workspaceId: request.workspaceId } });
    expect(inWorkspace.items.map((e) => e.id)).toContain(withRequest!.id);
    const elsewhere = await owner().dashboard.auditLog({ limit: 100, filter: { workspaceId: 'ws_none' } });
    expect(elsewhere.items.map((e) => e.id)).not.toContain(withRequest!.id);
    const named = all.items.find((e) => e.integrationRequestId);
    if (named) expect(named.integrationName).toEqual(expect.any(String));
    await expect(
      owner().dashboard.auditLog({
        filter: { createdFrom: '2026-02-01T00:00:00Z', createdTo: '2026-01-01T00:00:00Z' },
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('is newest first for admins and refused to members', async () => {
    const page = await owner().dashboard.auditLog({ limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(BigInt(page.items[0]!.id)).toBeGreaterThan(BigInt(page.items[1]!.id));
    const next = await owner().dashboard.auditLog({ limit: 2, cursor: page.nextCursor });
    expect(BigInt(next.items[0]!.id)).toBeLessThan(BigInt(page.items[1]!.id));

    const member = await env.deps.prisma.user.create({
      data: { id: newId(ID_PREFIX.user), email: 'm@example.com', name: 'Member', passwordHash: 'x' },
    });
    await env.deps.prisma.membership.create({
      data: { id: newId(ID_PREFIX.membership), userId: member.id, organizationId: org.organization.id, role: 'MEMBER' },
    });
    const pat = await createPersonalAccessToken(
      env.deps.prisma,
      { userId: member.id, organizationId: org.organization.id, role: 'MEMBER', via: 'cli' },
      { name: 't' },
    );
    const memberCaller = callerFor(env.deps, { pat: pat.token }).caller;
    await expect(memberCaller.dashboard.auditLog({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await memberCaller.dashboard.members()).map((m) => m.email)).toContain('m@example.com');
  });
});

describe('dashboard.workspaceUsage', () => {
  it('counts what deleting each workspace would take with it', async () => {
    const usage = await owner().dashboard.workspaceUsage();
    const mine = usage.find((u) => u.workspaceId === org.workspace.id);
    expect(mine).toMatchObject({ integrations: 1 });
    expect(mine!.requests).toBeGreaterThan(0);
    expect(usage.map((u) => u.workspaceId)).not.toContain(other.workspace.id);
  });
});
