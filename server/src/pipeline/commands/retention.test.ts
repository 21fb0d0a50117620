import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { identifierHmac } from '../../lib/crypto';
import { applyRetention } from './apply-retention';
import { buildCertificate } from '../../services/certificates/build-certificate';
import { renderCertificatePdf } from '../../services/certificates/render-pdf';
import { HASHED_PREFIX, dueForRetention, removeIdentifier } from '../store/retention';
import { hashHex, sha256Hex } from '../../lib/crypto';

let env: TestEnv;
let hooks: WebhookServer;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  hooks.on('POST /erase', () => ({ status: 200 }));
  hooks.on('POST /refuse', () => ({ status: 403, body: { error: 'not allowed' } }));
  worker = await startTestWorker(env);
});
afterAll(async () => {
  await worker?.stop();
  await hooks?.close();
  await env?.close();
});

async function completedRequest(identifier: string) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: { initiate: { url: `${hooks.url}/erase`, body: '{"email":"{{identifier}}"}' } },
  });
  const created = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
  await waitForRequest(env, created.id, ['SUCCESS']);
  const running = await caller.deletionRequests.createInWorkspace({
    workspaceId: org.workspace.id,
    identifier: `running-${identifier}`,
  });
  return { org, caller, id: created.id, runningId: running.id };
}

describe('retention policy', () => {
  it('HASH replaces the identifier with its keyed hash, removes payloads, and keeps exact search possible', async () => {
    const { caller, id, org } = await completedRequest('hash-me@example.com');
    await caller.organization.updateRetention({ action: 'HASH', days: 0 });
    await worker.stop();
    const later = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'not-finished@example.com',
    });
    // The confirmation's count is what applying then does: finished requests only.
    const preview = await caller.organization.retentionPreview();
    expect(preview).toMatchObject({ action: 'HASH', days: 0 });
    const result = await caller.organization.applyRetentionNow();
    expect(result.hashed).toBe(preview.due);
    expect((await caller.organization.retentionPreview()).due).toBe(0);
    worker = await startTestWorker(env);
    expect(result.hashed).toBeGreaterThanOrEqual(1);
    const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({
      hashed: true,
      identifier: HASHED_PREFIX + identifierHmac(env.deps.keyring, 'hash-me@example.com'),
    });
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: later.id } })).hashed).toBe(false);
    expect((await caller.deletionRequests.get({ deletionRequestId: id })).identifier).toBe('[redacted]');
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: id });
    expect(JSON.stringify(trail)).not.toContain('hash-me@example.com');
    expect(trail.at(-1)).toMatchObject({ action: 'request.hashed' });
    expect(trail.filter((e) => e.details !== null).length).toBe(0);
    // Running it again changes nothing more.
    expect((await applyRetention(env.db.prisma, new Date(), org.organization.id)).hashed).toBe(0);
  });

  it('DELETE removes the identifier and payloads and keeps the skeleton', async () => {
    const { caller, id, org } = await completedRequest('delete-me@example.com');
    await caller.organization.updateRetention({ action: 'DELETE', days: 0 });
    await applyRetention(env.db.prisma, new Date(), org.organization.id);
    const request = await caller.deletionRequests.get({ deletionRequestId: id, fetchHashed: 'false' });
    expect(request).toMatchObject({
      identifier: null,
      status: 'SUCCESS',
      integrationRequests: [expect.objectContaining({ name: 'CRM', status: 'SUCCESS' })],
    });
    const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id } });
    expect(stored.purgedAt).not.toBeNull();
    // Not even the keyed hashes stay: each is the hash of a marker of its own row.
    expect(hashHex(stored.identifierHmac)).toBe(sha256Hex(`purged:${id}`));
    const identifiers = await env.db.prisma.requestIdentifier.findMany({ where: { deletionRequestId: id } });
    expect(identifiers.length).toBeGreaterThan(0);
    for (const row of identifiers) {
      expect(row.value).toBeNull();
      expect([hashHex(row.valueHmac), hashHex(row.matchHmac)]).toEqual([
        sha256Hex(`purged:${row.id}`),
        sha256Hex(`purged:${row.id}`),
      ]);
    }
    expect(JSON.stringify(await caller.deletionRequests.auditTrail({ deletionRequestId: id }))).not.toContain(
      'delete-me@example.com',
    );
    // Its certificate says the identifier is gone; it signs no placeholder as the subject's hash.
    const actor = {
      userId: org.user.id,
      organizationId: org.organization.id,
      role: 'OWNER' as const,
      via: 'cli' as const,
    };
    const signed = await buildCertificate(env.db.prisma, env.deps.keyring, actor, id);
    expect((signed.certificate as { deletionRequest: { subject: unknown } }).deletionRequest.subject).toEqual({
      identifierRemoved: { by: 'retention policy', at: stored.purgedAt!.toISOString() },
    });
    expect(JSON.stringify(signed)).not.toContain('purged:');
    // The destination's evidence outlives the audit payloads retention removed.
    expect((signed.certificate as { destinations: { evidence: unknown }[] }).destinations[0]!.evidence).toEqual({
      recorded: true,
      vendor: { httpStatus: 200 },
    });
    expect(
      Buffer.from(await renderCertificatePdf(signed))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('waits the configured number of days after completion', async () => {
    const { caller, id, org } = await completedRequest('wait@example.com');
    await caller.organization.updateRetention({ action: 'HASH', days: 30 });
    await applyRetention(env.db.prisma, new Date(), org.organization.id);
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id } })).hashed).toBe(false);
    await applyRetention(env.db.prisma, new Date(Date.now() + 31 * 86_400_000), org.organization.id);
    expect((await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id } })).hashed).toBe(true);
  });

  it('a request whose identifier was hashed cannot be retried, and a step queued for it sends nothing', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Strict CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: `${hooks.url}/refuse`, body: '{"email":"{{identifier}}"}' } },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'refused@example.com',
    });
    const failed = await waitForRequest(env, created.id, ['FAILED']);
    const before = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: created.id } });
    // The body's hash is keyed, as the identifier's is: not the plain hash a guess could match.
    expect(before.requestHash).not.toBeNull();
    expect(before.requestHash).not.toBe(sha256Hex(`${org.workspace.id}\nrefused@example.com`));
    await caller.organization.updateRetention({ action: 'HASH', days: 0 });
    await applyRetention(env.db.prisma, new Date(), org.organization.id);
    const hashed = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: created.id } });
    expect(hashed).toMatchObject({ hashed: true, requestHash: null });

    await expect(caller.deletionRequests.retry({ deletionRequestId: created.id })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('retention policy'),
    });
    const irId = failed.integrationRequests[0]!.id;
    await expect(
      caller.deletionRequests.retryIntegration({ deletionRequestId: created.id, integrationRequestId: irId }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // A step that was queued anyway (a retry committed before the hash) fails without calling out.
    const calls = hooks.callsTo('POST /refuse').length;
    await env.db.prisma.integrationRequest.update({
      where: { id: irId },
      data: { status: 'STAGING', completedAt: null, nextAttemptAt: new Date(), attempts: 0 },
    });
    await env.db.prisma.deletionRequest.update({
      where: { id: created.id },
      data: { status: 'STAGING', completedAt: null },
    });
    const done = await waitForRequest(env, created.id, ['FAILED']);
    expect(done.integrationRequests[0]!.lastError).toContain('retention policy');
    expect(hooks.callsTo('POST /refuse').length).toBe(calls);
  });

  it('leaves alone a request retried after it was picked: no longer finished, no longer due', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Strict CRM',
      type: 'WEBHOOK',
      config: { initiate: { url: `${hooks.url}/refuse`, body: '{"email":"{{identifier}}"}' } },
    });
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'picked@example.com',
    });
    await waitForRequest(env, created.id, ['FAILED']);
    const cutoff = new Date();
    const [picked] = await dueForRetention(env.db.prisma, org.organization.id, cutoff, false, 10);
    expect(picked?.id).toBe(created.id);
    await worker.stop();
    try {
      await caller.deletionRequests.retry({ deletionRequestId: created.id });
      expect(await removeIdentifier(env.db.prisma, picked!, false, new Date(), cutoff)).toBe(false);
      const stored = await env.db.prisma.deletionRequest.findUniqueOrThrow({ where: { id: created.id } });
      expect(stored).toMatchObject({ identifier: 'picked@example.com', hashed: false });
    } finally {
      worker = await startTestWorker(env);
    }
  });

  it('only owners set it', async () => {
    const org = await seedOrganization(env.deps);
    await env.db.prisma.membership.updateMany({ where: { userId: org.user.id }, data: { role: 'ADMIN' } });
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await expect(caller.organization.updateRetention({ action: 'HASH', days: 1 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });
});
