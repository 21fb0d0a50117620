import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallbackEventType } from '@shared/schemas/callbacks';
import { cancelDeletionRequest } from '../commands/cancel';
import { confirmReceipt, correctReceiptConfirmation } from '../commands/confirm-receipt';
import { createDeletionRequest } from '../commands/create';
import { extendDeadline } from '../commands/extend-deadline';
import { startCallbackReceiver } from '../../test/fakes/callback-receiver';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { buildDigest } from '../../services/notifications/digest';
import { recordPastCompletions } from '../testing/completion-history';
import { recordDeadlineEvents } from './deadline-events';

let env: TestEnv;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeAll(async () => {
  env = await createTestEnv();
  receiver = await startCallbackReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

/**
 * A new organization with one webhook integration that nothing runs (no worker: requests stay
 * queued), a callback endpoint for `events`, earlier deletions through the integration that took
 * 20 days each, and a "Ten days" policy; `create` adds a request received at a given time.
 */
async function organizationAtRisk(slug: string, integrationName: string, events: CallbackEventType[]) {
  const org = await seedOrganization(env.deps, slug);
  const caller = callerFor(env.deps, { pat: org.pat }).caller;
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: integrationName,
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
  const endpoint = await caller.callbacks.create({ url: receiver.url, events });
  await recordPastCompletions(env.deps, org.actor, org.workspace.id, {
    days: 20,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
  });
  await caller.deadlines.createPolicy({ name: 'Ten days', days: 10, extensionDays: 5 });
  const create = (identifier: string, at: Date, regulation?: string) =>
    createDeletionRequest(
      env.deps,
      org.actor,
      { workspace: { id: org.workspace.id }, identifier, regulation },
      at,
    ).then((r) => r.deletionRequest);
  return { org, endpoint, create };
}

it('records deletion_request.overdue once per request past its deadline, and .at_risk once per deadline', async () => {
  const { org, endpoint, create } = await organizationAtRisk('deadline-events', 'CRM', [
    'deletion_request.overdue',
    'deletion_request.at_risk',
  ]);
  const now = new Date('2026-03-10T00:00:00.000Z');
  const late = await create('late@example.com', new Date('2026-02-01T00:00:00.000Z'), 'Ten days'); // due 02-11
  const risky = await create('risky@example.com', new Date('2026-03-05T00:00:00.000Z'), 'Ten days'); // due 03-15
  const safe = await create('safe@example.com', new Date('2026-03-05T00:00:00.000Z')); // GDPR: due 04-05

  const deliveries = async () =>
    (
      await env.deps.prisma.callbackDelivery.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { createdAt: 'asc' },
      })
    ).map((d) => ({ type: d.eventType, request: d.deletionRequestId, body: JSON.parse(d.body) }));

  expect(await recordDeadlineEvents(env.deps.prisma, now)).toBeGreaterThanOrEqual(2);
  const first = await deliveries();
  const of = (type: string) => first.filter((d) => d.type === type).map((d) => d.request);
  expect(of('deletion_request.overdue')).toContain(late.id);
  expect(of('deletion_request.overdue')).not.toContain(risky.id);
  expect(of('deletion_request.at_risk')).toEqual([risky.id]);
  const atRisk = first.find((d) => d.type === 'deletion_request.at_risk')!.body;
  expect(atRisk).toMatchObject({
    type: 'deletion_request.at_risk',
    data: {
      deletionRequest: { id: risky.id, dueAt: '2026-03-15T23:59:59.999Z', status: 'STAGING' },
      reasons: ['CRM takes about 20 days: at risk'],
    },
  });
  expect(JSON.stringify(first)).not.toMatch(/late@|risky@|safe@/);
  expect(of('deletion_request.at_risk')).not.toContain(safe.id);

  // Once: another pass records nothing new.
  expect(await recordDeadlineEvents(env.deps.prisma, now)).toBe(0);
  expect(await deliveries()).toHaveLength(first.length);

  // A new deadline may be at risk again; passing it is overdue, once.
  await extendDeadline(
    env.deps.prisma,
    org.actor,
    { deletionRequestId: risky.id, reason: 'Complex request: several systems' },
    new Date('2026-03-11T00:00:00.000Z'),
  );
  // Due 03-20 now, and the CRM usually finishes it 03-25.
  expect(await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-12T00:00:00.000Z'))).toBeGreaterThan(0);
  const later = (await deliveries()).slice(first.length);
  expect(later.filter((d) => d.request === risky.id).map((d) => d.type)).toEqual(['deletion_request.at_risk']);
  await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-21T00:00:00.000Z'));
  await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-22T00:00:00.000Z'));
  const overdueRisky = (await deliveries()).filter(
    (d) => d.request === risky.id && d.type === 'deletion_request.overdue',
  );
  expect(overdueRisky).toHaveLength(1);
});

it('pages through every request at risk: more than one page of them get their event, and the digest counts them all', async () => {
  const { org, endpoint, create } = await organizationAtRisk('deadline-events-many', 'Warehouse', [
    'deletion_request.at_risk',
  ]);
  const count = 230; // more than one page of candidates
  for (let i = 0; i < count; i++)
    await create(`many${i}@example.com`, new Date('2026-03-05T00:00:00.000Z'), 'Ten days'); // due 03-15
  const now = new Date('2026-03-10T00:00:00.000Z');

  await recordDeadlineEvents(env.deps.prisma, now);
  const events = await env.deps.prisma.callbackDelivery.count({
    where: { endpointId: endpoint.id, eventType: 'deletion_request.at_risk' },
  });
  expect(events).toBe(count);

  const digest = await buildDigest(env.deps, org.organization.id, now);
  expect(digest?.subject).toBe(`Deadlines: 0 overdue, ${count} at risk`);
  expect(digest?.text.match(/^- dr_/gm)).toHaveLength(20);
  // Read up to a limit, the count says there may be more; a limit with room to spare counts them exactly.
  expect((await buildDigest(env.deps, org.organization.id, now, 200))?.subject).toBe(
    'Deadlines: 0 overdue, 200+ at risk',
  );
  expect((await buildDigest(env.deps, org.organization.id, now, 1000))?.subject).toBe(
    `Deadlines: 0 overdue, ${count} at risk`,
  );
});

it('records deletion_request.receipt_overdue once per receipt still to confirm past its date, not for confirmed or canceled requests', async () => {
  const { org, endpoint, create } = await organizationAtRisk('receipt-events', 'Helpdesk', [
    'deletion_request.receipt_overdue',
  ]);
  // Received Monday 2 March: the receipt is to be confirmed by the end of Monday 16 March in California.
  const received = new Date('2026-03-02T09:00:00.000Z');
  const unconfirmed = await create('unconfirmed@example.com', received, 'CCPA');
  const confirmed = await create('confirmed@example.com', received, 'CCPA');
  const canceled = await create('canceled@example.com', received, 'CCPA');
  const gdpr = await create('gdpr@example.com', received, 'GDPR');
  const withdrawn = await create('withdrawn@example.com', received, 'CCPA');
  await confirmReceipt(
    env.deps.prisma,
    org.actor,
    { deletionRequestId: confirmed.id },
    new Date('2026-03-05T10:00:00Z'),
  );
  await confirmReceipt(
    env.deps.prisma,
    org.actor,
    { deletionRequestId: withdrawn.id },
    new Date('2026-03-05T10:00:00Z'),
  );
  await cancelDeletionRequest(env.deps, org.actor, canceled.id);
  const deliveries = async () =>
    (
      await env.deps.prisma.callbackDelivery.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { createdAt: 'asc' },
      })
    ).map((d) => ({ type: d.eventType, request: d.deletionRequestId, body: JSON.parse(d.body) }));

  // Not before its date.
  expect(await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-16T08:00:00.000Z'))).toBe(0);
  await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-17T08:00:00.000Z'));
  const first = await deliveries();
  expect(first.map((d) => [d.type, d.request])).toEqual([['deletion_request.receipt_overdue', unconfirmed.id]]);
  expect(first[0]!.body).toMatchObject({
    type: 'deletion_request.receipt_overdue',
    data: { deletionRequest: { id: unconfirmed.id, receiptConfirmBy: '2026-03-17T06:59:59.999Z' }, reasons: [] },
  });
  expect(JSON.stringify(first)).not.toMatch(/@example\.com/);
  expect([confirmed.id, canceled.id, gdpr.id, withdrawn.id].some((id) => first.some((d) => d.request === id))).toBe(
    false,
  );
  // Once.
  expect(await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-18T00:00:00.000Z'))).toBe(0);

  // A confirmation withdrawn after the date (it was not sent): the receipt is overdue, and said so once.
  await correctReceiptConfirmation(
    env.deps.prisma,
    org.actor,
    { deletionRequestId: withdrawn.id, confirmedAt: null, reason: 'Recorded on the wrong request' },
    new Date('2026-03-19T10:00:00Z'),
  );
  await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-19T11:00:00.000Z'));
  await recordDeadlineEvents(env.deps.prisma, new Date('2026-03-19T12:00:00.000Z'));
  expect((await deliveries()).slice(first.length).map((d) => d.request)).toEqual([withdrawn.id]);
});
