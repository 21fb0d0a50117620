import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dbQuery } from '../pipeline/store/sql';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';
import { startCallbackReceiver } from '../test/fakes/callback-receiver';
import { CallbackDispatcher } from './dispatcher';
import { enqueueCallbackEvent } from './store/events';

let env: TestEnv;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let dispatcher: CallbackDispatcher | null = null;

beforeAll(async () => {
  env = await createTestEnv();
  org = await seedOrganization(env.deps, 'callbacks');
  receiver = await startCallbackReceiver();
});
afterEach(async () => {
  await dispatcher?.stop(1_000);
  dispatcher = null;
  receiver.received.length = 0;
  Object.assign(receiver.state, { status: 204, holdMs: 0, statuses: [] });
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

const admin = () => callerFor(env.deps, { pat: org.pat }).caller;

async function startDispatcher(overrides: Partial<ConstructorParameters<typeof CallbackDispatcher>[1]> = {}) {
  dispatcher = new CallbackDispatcher(
    { ...env.deps, pool: env.db.pool },
    {
      concurrency: 4,
      pollIntervalMs: 50,
      leaseMs: 5_000,
      maxAttempts: 3,
      retryBaseMs: 20,
      retryMaxMs: 50,
      timeoutMs: 2_000,
      ...overrides,
    },
  );
  await dispatcher.start();
  return dispatcher;
}

async function eventually<T>(check: () => Promise<T> | T, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const delivery = (id: string) => env.db.prisma.callbackDelivery.findUniqueOrThrow({ where: { id } });

describe('status callbacks', () => {
  it('signs a test event the Standard Webhooks way: the standardwebhooks package verifies it', async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.completed'] });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(JSON.stringify(await admin().callbacks.list())).not.toContain(endpoint.secret);
    const { id } = await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await startDispatcher();
    const [call] = await eventually(() => (expect(receiver.received).toHaveLength(1), receiver.received));
    expect(call!.headers['webhook-id']).toBe(id);
    const payload = new Webhook(endpoint.secret).verify(call!.body, call!.headers) as {
      type: string;
      data: { endpointId: string };
    };
    expect(payload).toMatchObject({ type: 'callback.test', data: { endpointId: endpoint.id } });
    // A tampered body or another secret does not verify.
    expect(() => new Webhook(endpoint.secret).verify(call!.body.replace('test', 'tset'), call!.headers)).toThrow();
    const other = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.failed'] });
    expect(() => new Webhook(other.secret).verify(call!.body, call!.headers)).toThrow();
    await eventually(async () =>
      expect(await delivery(id)).toMatchObject({ status: 'DELIVERED', attempts: 1, lastStatusCode: 204 }),
    );
  });

  it('wakes an idle dispatcher: a test event, a resend and a status event go out long before its next poll', async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    // A poll interval the test would time out waiting for: only the wake-up can deliver in time.
    await startDispatcher({ pollIntervalMs: 60_000 });
    await eventually(async () =>
      expect(
        (await env.db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN callback_work'`)).rowCount,
      ).toBeGreaterThan(0),
    );
    const { id } = await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await eventually(() => expect(receiver.received.map((c) => c.headers['webhook-id'])).toEqual([id]), 5_000);
    await eventually(async () => expect(await delivery(id)).toMatchObject({ status: 'DELIVERED' }), 5_000);
    await admin().callbacks.resend({ deliveryId: id });
    await eventually(() => expect(receiver.received.map((c) => c.headers['webhook-id'])).toEqual([id, id]), 5_000);
    const created = await admin().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'woken@example.com',
    });
    await eventually(
      () => expect(receiver.received.map((c) => JSON.parse(c.body).data.deletionRequest?.id)).toContain(created.id),
      5_000,
    );
    await admin().callbacks.delete({ endpointId: endpoint.id });
  });

  it('a rotated secret: both verify during the overlap, only the new one after it', async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    const rotated = await admin().callbacks.rotateSecret({ endpointId: endpoint.id, overlapHours: 24 });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt!)).toBeGreaterThan(Date.now());
    await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await startDispatcher();
    const [during] = await eventually(() => (expect(receiver.received).toHaveLength(1), receiver.received));
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(during!.body, during!.headers)).toMatchObject({ type: 'callback.test' });
    expect(new Webhook(rotated.secret).verify(during!.body, during!.headers)).toMatchObject({ type: 'callback.test' });

    const again = await admin().callbacks.rotateSecret({ endpointId: endpoint.id, overlapHours: 0 });
    await admin().callbacks.sendTest({ endpointId: endpoint.id });
    const [, after] = await eventually(() => (expect(receiver.received).toHaveLength(2), receiver.received));
    expect(new Webhook(again.secret).verify(after!.body, after!.headers)).toMatchObject({ type: 'callback.test' });
    expect(() => new Webhook(rotated.secret).verify(after!.body, after!.headers)).toThrow();
  });

  it('retries with backoff under the same webhook-id, then gives up; Resend sends the same id again', async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    receiver.state.statuses = [500, 503];
    const { id } = await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await startDispatcher();
    await eventually(async () => expect(await delivery(id)).toMatchObject({ status: 'DELIVERED', attempts: 3 }));
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([id, id, id]);

    receiver.state.status = 500;
    const failing = await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await eventually(async () =>
      expect(await delivery(failing.id)).toMatchObject({ status: 'FAILED', attempts: 3, lastStatusCode: 500 }),
    );
    expect((await delivery(failing.id)).lastError).toMatch(/gave up after 3 attempts/);
    const log = await admin().callbacks.deliveries({ endpointId: endpoint.id });
    expect(log.items.map((d) => d.id)).toEqual([failing.id, id]);
    expect(log.nextCursor).toBeNull();

    receiver.state.status = 200;
    await admin().callbacks.resend({ deliveryId: failing.id });
    await eventually(async () =>
      expect(await delivery(failing.id)).toMatchObject({ status: 'DELIVERED', attempts: 1 }),
    );
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(failing.id);
  });

  it("honours a receiver's Retry-After only up to the backoff's cap", async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    receiver.state.statuses = [503];
    receiver.state.retryAfter = '99999999';
    try {
      const { id } = await admin().callbacks.sendTest({ endpointId: endpoint.id });
      await startDispatcher();
      await eventually(async () => expect(await delivery(id)).toMatchObject({ status: 'DELIVERED', attempts: 2 }));
    } finally {
      receiver.state.retryAfter = null;
    }
  });

  it('the delivery log pages newest first, and deliveries recorded in the same instant are each shown once', async () => {
    const endpoint = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    // A burst: 120 deliveries in one instant, and an older one.
    const instant = new Date('2026-05-01T12:00:00Z');
    const row = (id: string, createdAt: Date) => ({
      id,
      organizationId: org.organization.id,
      endpointId: endpoint.id,
      eventType: 'deletion_request.created',
      body: '{}',
      status: 'DELIVERED' as const,
      createdAt,
    });
    const burst = Array.from({ length: 120 }, (_, i) => `msg_burst_${String(i).padStart(3, '0')}`);
    await env.deps.prisma.callbackDelivery.createMany({
      data: [...burst.map((id) => row(id, instant)), row('msg_older', new Date('2026-04-01T00:00:00Z'))],
    });
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<ReturnType<typeof admin>['callbacks']['deliveries']>> =
        await admin().callbacks.deliveries({ endpointId: endpoint.id, cursor });
      seen.push(...page.items.map((d) => d.id));
      pages.push(page.items.length);
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toEqual([50, 50, 21]);
    expect(seen).toEqual([...[...burst].reverse(), 'msg_older']);
    await expect(
      admin().callbacks.deliveries({ endpointId: endpoint.id, cursor: 'msg_unknown' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records an event for each enabled endpoint that subscribed to it, in its workspace or organization-wide', async () => {
    const fresh = await seedOrganization(env.deps, 'fanout');
    const caller = callerFor(env.deps, { pat: fresh.pat }).caller;
    const other = await caller.workspaces.create({ name: 'other' });
    const orgWide = await caller.callbacks.create({
      url: receiver.url,
      events: ['deletion_request.completed', 'deletion_request.failed'],
    });
    const sameWorkspace = await caller.callbacks.create({
      url: receiver.url,
      events: ['deletion_request.completed'],
      workspaceId: fresh.workspace.id,
    });
    await caller.callbacks.create({ url: receiver.url, events: ['deletion_request.completed'], workspaceId: other.id });
    await caller.callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    const disabled = await caller.callbacks.create({ url: receiver.url, events: ['deletion_request.completed'] });
    await caller.callbacks.update({ endpointId: disabled.id, enabled: false });
    const ids = await env.db.prisma.$transaction((tx) =>
      enqueueCallbackEvent(dbQuery(tx), {
        organizationId: fresh.organization.id,
        workspaceId: fresh.workspace.id,
        type: 'deletion_request.completed',
        deletionRequestId: 'dr_x',
        data: { deletionRequest: { id: 'dr_x', status: 'SUCCESS' } },
      }),
    );
    const rows = await env.db.prisma.callbackDelivery.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.endpointId).sort()).toEqual([orgWide.id, sameWorkspace.id].sort());
    expect(new Set(rows.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(rows[0]!.body)).toMatchObject({
      type: 'deletion_request.completed',
      data: { deletionRequest: { id: 'dr_x', status: 'SUCCESS' } },
    });
    await env.db.prisma.callbackDelivery.deleteMany({ where: { id: { in: ids } } });
  });

  it("refuses URLs the SSRF guard blocks and plain http to public hosts; other organizations' endpoints are not found", async () => {
    await expect(
      admin().callbacks.create({ url: 'http://169.254.169.254/latest', events: ['deletion_request.created'] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      admin().callbacks.create({ url: 'http://93.184.215.14/hook', events: ['deletion_request.created'] }),
    ).rejects.toThrow(/HTTPS/);
    await expect(
      admin().callbacks.create({ url: 'ftp://127.0.0.1/x', events: ['deletion_request.created'] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(admin().callbacks.create({ url: receiver.url, events: [] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const stranger = await seedOrganization(env.deps, 'stranger');
    const mine = await admin().callbacks.create({ url: receiver.url, events: ['deletion_request.created'] });
    const theirs = callerFor(env.deps, { pat: stranger.pat }).caller;
    await expect(theirs.callbacks.sendTest({ endpointId: mine.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(theirs.callbacks.deliveries({ endpointId: mine.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(theirs.callbacks.rotateSecret({ endpointId: mine.id, overlapHours: 1 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await theirs.callbacks.list()).map((e) => e.id)).not.toContain(mine.id);
  });

  it('a token needs callbacks:manage; a delivery blocked by the SSRF guard fails at once', async () => {
    const reader = await admin().tokens.create({ name: 'reader', scopes: ['requests:read'] });
    await expect(callerFor(env.deps, { pat: reader.token }).caller.callbacks.list()).rejects.toThrow(
      /callbacks:manage/,
    );
    const manager = await admin().tokens.create({ name: 'manager', scopes: ['callbacks:manage'] });
    const endpoint = await callerFor(env.deps, { pat: manager.token }).caller.callbacks.create({
      url: receiver.url,
      events: ['deletion_request.created'],
    });
    // The URL was allowed when saved; the address is refused when sending (e.g. DNS changed).
    await env.db.prisma.callbackEndpoint.update({
      where: { id: endpoint.id },
      data: { url: 'http://169.254.169.254/latest' },
    });
    const { id } = await admin().callbacks.sendTest({ endpointId: endpoint.id });
    await startDispatcher();
    await eventually(async () => expect(await delivery(id)).toMatchObject({ status: 'FAILED', attempts: 1 }));
    expect(receiver.received).toHaveLength(0);
  });
});
