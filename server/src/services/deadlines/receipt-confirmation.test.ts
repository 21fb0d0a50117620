import { addBusinessDays, businessDaysLeft, receiptConfirmByFor } from '@shared/deadlines';
import { confirmedAtSchema } from '@shared/schemas/deletion-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDetails } from '../audit/recorded-exchanges';
import { expectError, restClient } from '../../test/rest';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { createDeletionRequest as createInPipeline } from '../../pipeline/commands/create';
import { confirmReceipt, correctReceiptConfirmation } from '../../pipeline/commands/confirm-receipt';
import { extendDeadline } from '../../pipeline/commands/extend-deadline';
import { searchDeletionRequests } from '../dashboard/search-deletion-requests';

describe('the day a confirmation was sent', () => {
  it('a date alone is the end of that day in UTC (still that day in California), now for today; a date-time as given', () => {
    expect(confirmedAtSchema.parse('2026-11-20').toISOString()).toBe('2026-11-20T23:59:59.999Z');
    const today = new Date().toISOString().slice(0, 10);
    const before = Date.now();
    const parsed = confirmedAtSchema.parse(today).getTime();
    expect(parsed).toBeGreaterThanOrEqual(before);
    expect(parsed).toBeLessThanOrEqual(Date.now());
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(confirmedAtSchema.parse(tomorrow).getTime()).toBeGreaterThan(Date.now());
    expect(confirmedAtSchema.parse('2026-11-20T09:00:00-08:00').toISOString()).toBe('2026-11-20T17:00:00.000Z');
    // Due on Friday 20 November: sent that Friday, on time; sent on the Saturday, late (the start
    // of Saturday in UTC is still Friday afternoon in California).
    const due = new Date('2026-11-20T10:00:00Z');
    expect(businessDaysLeft(due, confirmedAtSchema.parse('2026-11-20'))).toBe(0);
    expect(businessDaysLeft(due, confirmedAtSchema.parse('2026-11-21'))).toBe(-1);
  });
});

describe('business days', () => {
  it("counts Monday to Friday on California's calendar, from the day after receipt there, to the end of the day there", () => {
    // Friday 27 November 2026: ten business days later is Friday 11 December.
    expect(addBusinessDays(new Date('2026-11-27T10:00:00Z'), 10).toISOString()).toBe('2026-12-12T07:59:59.999Z');
    // Received on a Saturday or a Sunday: the count starts on Monday.
    expect(addBusinessDays(new Date('2026-11-28T10:00:00Z'), 10).toISOString()).toBe('2026-12-12T07:59:59.999Z');
    expect(addBusinessDays(new Date('2026-11-29T23:30:00Z'), 10).toISOString()).toBe('2026-12-12T07:59:59.999Z');
    // Sunday evening in California is Monday in UTC: counted from Sunday, due on Friday 11 December there.
    expect(addBusinessDays(new Date('2026-11-30T03:00:00Z'), 10).toISOString()).toBe('2026-12-12T07:59:59.999Z');
    // Across the spring change of clocks: 23:30 on Thursday 5 March there, due by the end of Thursday 19 March there.
    expect(addBusinessDays(new Date('2026-03-06T07:30:00Z'), 10).toISOString()).toBe('2026-03-20T06:59:59.999Z');
    // Monday: the Monday two weeks later.
    expect(addBusinessDays(new Date('2026-11-30T08:00:00Z'), 10).toISOString()).toBe('2026-12-15T07:59:59.999Z');
    expect(receiptConfirmByFor('CCPA', new Date('2026-11-30T08:00:00Z'))?.toISOString()).toBe(
      '2026-12-15T07:59:59.999Z',
    );
    expect(receiptConfirmByFor('GDPR', new Date('2026-11-30T08:00:00Z'))).toBeNull();
    expect(receiptConfirmByFor('LGPD', new Date('2026-11-30T08:00:00Z'))).toBeNull();
  });

  it('business days left: those after today up to the day (0 on the day), negative once past', () => {
    const due = new Date('2026-12-11T10:00:00Z'); // a Friday
    expect(businessDaysLeft(due, new Date('2026-11-27T15:00:00Z'))).toBe(10);
    expect(businessDaysLeft(due, new Date('2026-12-05T12:00:00Z'))).toBe(5); // a Saturday
    expect(businessDaysLeft(due, new Date('2026-12-11T23:00:00Z'))).toBe(0);
    // The weekend after a Friday's date is already late.
    expect(businessDaysLeft(due, new Date('2026-12-12T20:00:00Z'))).toBe(-1);
    expect(businessDaysLeft(due, new Date('2026-12-13T09:00:00Z'))).toBe(-1);
    expect(businessDaysLeft(due, new Date('2026-12-14T09:00:00Z'))).toBe(-1);
    expect(businessDaysLeft(due, new Date('2026-12-18T09:00:00Z'))).toBe(-5);
  });
});

let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'receipts');
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
const create = (identifier: string, now: Date, regulation?: string, receivedAt?: Date) =>
  createInPipeline(
    env.deps,
    org.actor,
    { workspace: { id: org.workspace.id }, identifier, regulation, receivedAt },
    now,
  ).then((r) => r.deletionRequest);
const confirmations = (id: string, action = 'request.receipt_confirmed') =>
  env.deps.prisma.auditLog
    .findMany({ where: { deletionRequestId: id, action }, orderBy: { createdAt: 'asc' } })
    .then((rows) =>
      rows.map(({ exchanges, ...row }) => ({ ...row, details: recordedDetails(row.details, exchanges) })),
    );

describe('confirming receipt to the subject', () => {
  it('a CCPA request is due a confirmation 10 business days after receipt; a GDPR one is not', async () => {
    const ccpa = await create('ccpa-receipt@example.com', new Date('2026-11-30T08:00:00Z'), 'CCPA');
    expect(ccpa).toMatchObject({ receiptConfirmBy: '2026-12-15T07:59:59.999Z', receiptConfirmedAt: null });
    // From the day it was received, when that was earlier.
    const late = await create(
      'ccpa-by-post@example.com',
      new Date('2026-11-30T08:00:00Z'),
      'CCPA',
      new Date('2026-11-20T00:00:00Z'),
    );
    expect(late.receiptConfirmBy).toBe('2026-12-04T07:59:59.999Z');
    const gdpr = await create('gdpr-receipt@example.com', new Date('2026-11-30T08:00:00Z'));
    expect(gdpr).toMatchObject({ receiptConfirmBy: null, receiptConfirmedAt: null });
    // The same fields in every shape: the detail and the public lists.
    const got = await owner().deletionRequests.get({ deletionRequestId: ccpa.id });
    expect(got).toMatchObject({ receiptConfirmBy: ccpa.receiptConfirmBy, receiptConfirmedAt: null });
    const api = restClient(server.baseUrl);
    const listed = (await (
      await api.get(`/api/public/deletion-requests/organization?limit=100`, { 'X-API-Key': org.pat })
    ).json()) as { id: string; receiptConfirmBy: string | null; receivedAt: string }[];
    expect(listed.find((r) => r.id === late.id)).toMatchObject({
      receiptConfirmBy: '2026-12-04T07:59:59.999Z',
      receivedAt: '2026-11-20T00:00:00.000Z',
    });
  });

  it('records it once with when and how, audited on time or late; the filter lists those still to confirm', async () => {
    const now = new Date('2026-12-01T09:00:00Z');
    const onTime = await create('confirm-on-time@example.com', new Date('2026-11-30T08:00:00Z'), 'CCPA');
    const lateOne = await create('confirm-late@example.com', new Date('2026-11-02T08:00:00Z'), 'CCPA');
    const search = async () =>
      (
        await searchDeletionRequests(
          env.deps.prisma,
          env.deps.keyring,
          org.actor,
          { filter: { due: 'unconfirmed' }, sort: 'created', limit: 100 } as never,
          now,
        )
      ).items.map((r) => r.id);
    expect(await search()).toEqual(expect.arrayContaining([onTime.id, lateOne.id]));

    const first = await confirmReceipt(
      env.deps.prisma,
      org.actor,
      { deletionRequestId: onTime.id, note: 'Emailed from privacy@' },
      now,
    );
    expect(first).toEqual({
      deletionRequestId: onTime.id,
      receiptConfirmBy: '2026-12-15T07:59:59.999Z',
      receiptConfirmedAt: now.toISOString(),
      onTime: true,
    });
    const [audit] = await confirmations(onTime.id);
    expect(audit).toMatchObject({
      summary: 'Receipt confirmed to the subject on 2026-12-01 (due by 2026-12-14)',
      details: { note: 'Emailed from privacy@', onTime: true },
    });
    // Due 16 November; told on 20 November: four business days late, and the record says so.
    const told = new Date('2026-11-20T16:00:00Z');
    const second = await confirmReceipt(
      env.deps.prisma,
      org.actor,
      { deletionRequestId: lateOne.id, confirmedAt: told },
      now,
    );
    expect(second).toMatchObject({ receiptConfirmedAt: told.toISOString(), onTime: false });
    expect((await confirmations(lateOne.id))[0]?.summary).toBe(
      'Receipt confirmed to the subject on 2026-11-20 (4 business days after 2026-11-16, the date it was due)',
    );
    const after = await search();
    expect(after).not.toContain(onTime.id);
    expect(after).not.toContain(lateOne.id);

    // Once per request.
    await expect(
      confirmReceipt(env.deps.prisma, org.actor, { deletionRequestId: onTime.id }, now),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'Receipt of this request was already confirmed on 2026-12-01',
    });
    expect(await confirmations(onTime.id)).toHaveLength(1);
  });

  it('"nearest deadline first" among receipts to confirm follows the confirmation deadlines, page after page', async () => {
    const now = new Date('2026-10-20T09:00:00Z');
    // Received first, so its confirmation is due first; its deletion deadline was extended, so
    // by the deletion deadline it would come last.
    const first = await create('order-first@example.com', new Date('2026-10-01T08:00:00Z'), 'CCPA');
    await extendDeadline(env.deps.prisma, org.actor, { deletionRequestId: first.id, reason: 'Many systems' }, now);
    const second = await create('order-second@example.com', new Date('2026-10-02T08:00:00Z'), 'CCPA');
    const third = await create('order-third@example.com', new Date('2026-10-05T08:00:00Z'), 'CCPA');
    const search = (limit: number, cursor?: string | null) =>
      searchDeletionRequests(
        env.deps.prisma,
        env.deps.keyring,
        org.actor,
        { filter: { due: 'unconfirmed' }, sort: 'due', limit, cursor: cursor ?? undefined } as never,
        now,
      );
    const page1 = await search(1);
    const page2 = await search(100, page1.nextCursor);
    const listed = [...page1.items, ...page2.items];
    const ours = listed.filter((r) => [first.id, second.id, third.id].includes(r.id)).map((r) => r.id);
    expect(ours).toEqual([first.id, second.id, third.id]);
    const by = listed.map((r) => r.receiptConfirmBy!);
    expect(by).toEqual([...by].sort());
    expect(new Set(listed.map((r) => r.id)).size).toBe(listed.length);
    // The deletion deadlines are in another order: the extended one is last of the three.
    const dues = listed.filter((r) => ours.includes(r.id)).map((r) => r.dueAt!);
    expect(dues[0]! > dues[2]!).toBe(true);
  });

  it('a recorded confirmation is corrected, or withdrawn, with a reason; both are audited and the first entry stays', async () => {
    const now = new Date('2026-12-01T09:00:00Z');
    // Received Monday 2 November: due by Monday 16 November.
    const request = await create('correct-me@example.com', new Date('2026-11-02T08:00:00Z'), 'CCPA');
    const correct = (confirmedAt: Date | null, reason = 'Typed the wrong date; the letter went on the 13th') =>
      correctReceiptConfirmation(
        env.deps.prisma,
        org.actor,
        { deletionRequestId: request.id, confirmedAt, reason },
        now,
      );
    const stored = async () =>
      (await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } })).receiptConfirmedAt;
    // Nothing recorded yet: nothing to correct.
    await expect(correct(null)).rejects.toMatchObject({ code: 'CONFLICT' });
    await confirmReceipt(
      env.deps.prisma,
      org.actor,
      { deletionRequestId: request.id, confirmedAt: new Date('2026-11-20T16:00:00Z') },
      now,
    );

    expect(await correct(new Date('2026-11-13T10:00:00Z'))).toEqual({
      deletionRequestId: request.id,
      receiptConfirmBy: '2026-11-17T07:59:59.999Z',
      receiptConfirmedAt: '2026-11-13T10:00:00.000Z',
      previousConfirmedAt: '2026-11-20T16:00:00.000Z',
      onTime: true,
    });
    expect((await stored())?.toISOString()).toBe('2026-11-13T10:00:00.000Z');
    const [corrected] = await confirmations(request.id, 'request.receipt_confirmation_corrected');
    expect(corrected).toMatchObject({
      summary: 'Confirmation of receipt corrected: sent on 2026-11-13 (due by 2026-11-16), not 2026-11-20',
      details: {
        previousConfirmedAt: '2026-11-20T16:00:00.000Z',
        confirmedAt: '2026-11-13T10:00:00.000Z',
        onTime: true,
        reason: 'Typed the wrong date; the letter went on the 13th',
      },
    });
    // The same time again, or one before receipt, changes nothing.
    await expect(correct(new Date('2026-11-13T10:00:00Z'))).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(correct(new Date('2026-10-30T10:00:00Z'))).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await stored())?.toISOString()).toBe('2026-11-13T10:00:00.000Z');

    // Withdrawn (it was never sent): the receipt is to confirm again, and can be recorded again.
    expect(await correct(null, 'Recorded on the wrong request')).toMatchObject({
      receiptConfirmedAt: null,
      previousConfirmedAt: '2026-11-13T10:00:00.000Z',
      onTime: null,
    });
    expect(await stored()).toBeNull();
    const listed = await searchDeletionRequests(
      env.deps.prisma,
      env.deps.keyring,
      org.actor,
      { filter: { due: 'unconfirmed' }, sort: 'created', limit: 100 } as never,
      now,
    );
    expect(listed.items.map((r) => r.id)).toContain(request.id);
    const trail = await confirmations(request.id, 'request.receipt_confirmation_corrected');
    expect(trail.map((entry) => entry.summary)).toEqual([
      'Confirmation of receipt corrected: sent on 2026-11-13 (due by 2026-11-16), not 2026-11-20',
      'Confirmation of receipt withdrawn (recorded for 2026-11-13): the receipt is still to confirm',
    ]);
    // The first record's entry is still there, unchanged.
    expect((await confirmations(request.id)).map((entry) => entry.summary)).toEqual([
      'Receipt confirmed to the subject on 2026-11-20 (4 business days after 2026-11-16, the date it was due)',
    ]);
    await confirmReceipt(env.deps.prisma, org.actor, { deletionRequestId: request.id }, now);
    expect((await stored())?.toISOString()).toBe(now.toISOString());

    // Over REST: a reason is required (400, nothing changed); a withdrawal answers the record before.
    const api = restClient(server.baseUrl);
    const path = `/api/public/deletion-requests/${request.id}/correct-receipt-confirmation`;
    const headers = { 'X-API-Key': org.pat };
    await expectError(await api.post(path, { confirmedAt: null }, headers), 400, 'BAD_REQUEST');
    await expectError(await api.post(path, { confirmedAt: null, reason: '   ' }, headers), 400, 'BAD_REQUEST');
    expect((await stored())?.toISOString()).toBe(now.toISOString());
    const withdrawn = await api.post(path, { confirmedAt: null, reason: 'Sent to the wrong address' }, headers);
    expect(withdrawn.status).toBe(200);
    expect(await withdrawn.json()).toMatchObject({ receiptConfirmedAt: null, previousConfirmedAt: now.toISOString() });
    expect(await stored()).toBeNull();
  });

  it('over REST: a time in the future, before receipt or not a date is a 400 and records nothing; another organization gets a 404', async () => {
    const api = restClient(server.baseUrl);
    const request = await create('confirm-rest@example.com', new Date(Date.now() - 3 * 86_400_000), 'CCPA');
    const path = `/api/public/deletion-requests/${request.id}/confirm-receipt`;
    const headers = { 'X-API-Key': org.pat };
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    await expectError(await api.post(path, { confirmedAt: tomorrow }, headers), 400, 'BAD_REQUEST');
    await expectError(await api.post(path, { confirmedAt: '2020-01-01' }, headers), 400, 'BAD_REQUEST');
    await expectError(await api.post(path, { confirmedAt: 'yesterday' }, headers), 400, 'BAD_REQUEST');
    await expectError(await api.post(path, { confirmedAt: '2026-02-30' }, headers), 400, 'BAD_REQUEST');
    await expectError(await api.post(path, { note: 'x'.repeat(501) }, headers), 400, 'BAD_REQUEST');
    expect(await confirmations(request.id)).toHaveLength(0);
    const other = await seedOrganization(env.deps, 'receipts-other');
    await expectError(await api.post(path, {}, { 'X-API-Key': other.pat }), 404, 'NOT_FOUND');

    const ok = await api.post(path, { note: 'Letter sent' }, { ...headers, 'Idempotency-Key': 'confirm-1' });
    expect(ok.status).toBe(200);
    const answer = await ok.json();
    expect(answer).toMatchObject({ deletionRequestId: request.id, onTime: true });
    // A retry with the key answers the first answer again; without it, a 409.
    const replay = await api.post(path, { note: 'Letter sent' }, { ...headers, 'Idempotency-Key': 'confirm-1' });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(answer);
    await expectError(await api.post(path, {}, headers), 409, 'CONFLICT');
    expect(await confirmations(request.id)).toHaveLength(1);
    const stored = await env.deps.prisma.deletionRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(stored.receiptConfirmedAt?.toISOString()).toBe(answer.receiptConfirmedAt);
  });

  it('a token limited to another workspace cannot record it', async () => {
    const request = await create('confirm-elsewhere@example.com', new Date(Date.now() - 86_400_000), 'CCPA');
    const elsewhere = await owner().workspaces.create({ name: 'Receipts elsewhere' });
    const limited = await owner().tokens.create({
      name: 'receipts elsewhere',
      scopes: ['requests:write'],
      workspaceIds: [elsewhere.id],
    });
    await expect(
      callerFor(env.deps, { pat: limited.token }).caller.deadlines.confirmReceipt({ deletionRequestId: request.id }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await confirmations(request.id)).toHaveLength(0);
  });
});
