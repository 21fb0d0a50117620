import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../lib/csv';
import { buildCertificate } from '../../services/certificates/build-certificate';
import { renderCertificatePdf } from '../../services/certificates/render-pdf';
import { startCallbackReceiver } from '../../test/fakes/callback-receiver';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';
import { expectError, restClient } from '../../test/rest';
import { createDeletionRequest } from './create';

/**
 * A canceled request was closed without being fulfilled: it says so, with the reason given on
 * cancel, in the API's answer, the dashboard's list, the certificate, the CSV export and the
 * callbacks. No worker runs: requests stay queued until canceled.
 */
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let rest: ReturnType<typeof restClient>;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let endpointId: string;

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  rest = restClient(server.baseUrl);
  receiver = await startCallbackReceiver();
  org = await seedOrganization(env.deps, 'cancel-reason');
  await owner().integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: 'http://127.0.0.1:9/erase' } },
  });
  endpointId = (await owner().callbacks.create({ url: receiver.url, events: ['deletion_request.completed'] })).id;
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await env?.close();
});

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;
const auth = () => ({ 'x-api-key': org.pat });
const create = async (identifier: string) =>
  (await createDeletionRequest(env.deps, org.actor, { workspace: { id: org.workspace.id }, identifier }))
    .deletionRequest.id;
const completedCallback = async (deletionRequestId: string) => {
  const delivery = await env.deps.prisma.callbackDelivery.findFirstOrThrow({
    where: { endpointId, deletionRequestId, eventType: 'deletion_request.completed' },
  });
  return JSON.parse(delivery.body).data.deletionRequest;
};

describe('cancel with a reason', () => {
  it('reads "Closed — not fulfilled" with the reason in the answer, the list, the certificate, the export and the callback', async () => {
    const id = await create('duplicate@example.com');
    const answer = await owner().deletionRequests.cancel({
      deletionRequestId: id,
      reason: 'duplicate',
      note: 'same person wrote twice',
    });
    expect(answer.deletionRequest).toMatchObject({
      status: 'CANCELED',
      statusReason: 'Closed — not fulfilled (Duplicate request: same person wrote twice)',
      cancelReason: 'duplicate',
      cancelNote: 'same person wrote twice',
    });

    const list = await owner().dashboard.searchRequests({ filter: { statuses: ['CANCELED'] } });
    expect(list.items.find((r) => r.id === id)).toMatchObject({ cancelReason: 'duplicate' });

    const { certificate } = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, id);
    expect((certificate as { deletionRequest: { closed?: unknown } }).deletionRequest.closed).toEqual({
      outcome: 'Closed — not fulfilled',
      reason: 'duplicate',
      reasonText: 'Duplicate request: same person wrote twice',
    });
    const pdf = await renderCertificatePdf(await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, id));
    expect(pdf.byteLength).toBeGreaterThan(1000);

    const csv = parseCsv(
      await (await fetch(`${server.baseUrl}/api/downloads/requests.csv`, { headers: auth() })).text(),
    );
    const [header, ...rows] = csv.map((r) => r.cells);
    const row = rows.find((r) => r[0] === id)!;
    const cell = (name: string) => row[header!.indexOf(name)];
    expect(cell('statusReason')).toBe('Closed — not fulfilled (Duplicate request: same person wrote twice)');
    expect(cell('cancelReason')).toBe('duplicate');
    expect(cell('cancelNote')).toBe('same person wrote twice');

    expect(await completedCallback(id)).toMatchObject({
      status: 'CANCELED',
      statusReason: 'Closed — not fulfilled (Duplicate request: same person wrote twice)',
      cancelReason: 'duplicate',
      cancelNote: 'same person wrote twice',
    });
  });

  it('over REST the reason stays optional: without one the request reads "Closed — not fulfilled"', async () => {
    const id = await create('no-reason@example.com');
    const response = await rest.post(`/api/public/deletion-requests/${id}/cancel`, {}, auth());
    expect(response.status).toBe(200);
    expect((await response.json()).deletionRequest).toMatchObject({
      status: 'CANCELED',
      statusReason: 'Closed — not fulfilled',
      cancelReason: null,
      cancelNote: null,
    });
    expect(await completedCallback(id)).toMatchObject({ statusReason: 'Closed — not fulfilled', cancelReason: null });
  });

  it('over REST takes a reason in the body', async () => {
    const id = await create('withdrawn@example.com');
    const response = await rest.post(`/api/public/deletion-requests/${id}/cancel`, { reason: 'withdrawn' }, auth());
    expect(response.status).toBe(200);
    expect((await response.json()).deletionRequest).toMatchObject({
      statusReason: 'Closed — not fulfilled (Withdrawn by the person)',
      cancelReason: 'withdrawn',
    });
  });

  it('refuses "other" without a note, and an unknown reason, with a 400 naming the field; nothing is canceled', async () => {
    const id = await create('other@example.com');
    const other = await rest.post(`/api/public/deletion-requests/${id}/cancel`, { reason: 'other' }, auth());
    const body = await expectError(other, 400, 'BAD_REQUEST');
    expect(JSON.stringify(body)).toContain('note');
    await expectError(
      await rest.post(`/api/public/deletion-requests/${id}/cancel`, { reason: 'bored' }, auth()),
      400,
      'BAD_REQUEST',
    );
    expect((await owner().deletionRequests.get({ deletionRequestId: id })).status).toBe('STAGING');
    const canceled = await owner().deletionRequests.cancel({
      deletionRequestId: id,
      reason: 'other',
      note: 'moved abroad',
    });
    expect(canceled.deletionRequest.statusReason).toBe('Closed — not fulfilled (Other: moved abroad)');
  });

  it('bulk cancel records the reason on every request it cancels, and refuses "other" without a note', async () => {
    const ids = [await create('bulk-1@example.com'), await create('bulk-2@example.com')];
    await expect(owner().deletionRequests.bulkCancel({ deletionRequestIds: ids, reason: 'other' })).rejects.toThrow(
      /note/,
    );
    const result = await owner().deletionRequests.bulkCancel({ deletionRequestIds: ids, reason: 'legal_exemption' });
    expect(result.succeeded).toBe(2);
    for (const id of ids)
      expect(await owner().deletionRequests.get({ deletionRequestId: id })).toMatchObject({
        cancelReason: 'legal_exemption',
        statusReason: 'Closed — not fulfilled (Legal exemption)',
      });
  });

  it('keeps the reason the request had when nothing could be canceled', async () => {
    const id = await create('finished@example.com');
    await owner().deletionRequests.cancel({ deletionRequestId: id, reason: 'identity_not_verified' });
    await expect(owner().deletionRequests.cancel({ deletionRequestId: id, reason: 'duplicate' })).rejects.toThrow(
      /nothing to cancel/,
    );
    expect((await owner().deletionRequests.get({ deletionRequestId: id })).cancelReason).toBe('identity_not_verified');
  });
});
