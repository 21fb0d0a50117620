import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetention } from '../../pipeline/commands/apply-retention';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../../test/engine';
import { startWebhookServer, type WebhookServer } from '../../test/fakes/webhook-server';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../../test/harness';
import { buildCertificate } from './build-certificate';
import { verifyCertificate } from './verify-certificate';

let env: TestEnv;
let hooks: WebhookServer;
const identifier = 'Jane.Doe+Cert@Example.org';
// The forms a destination gives back: as sent, case-folded, URL-encoded (and both).
const forms = [
  identifier,
  identifier.toLowerCase(),
  encodeURIComponent(identifier),
  encodeURIComponent(identifier.toLowerCase()),
];

beforeAll(async () => {
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  hooks = await startWebhookServer();
  forms.forEach((form, n) => {
    hooks.on(`POST /jobs-${n}`, () => ({ status: 202, body: { id: `erase:${form}` } }));
    hooks.on(`GET /jobs-${n}/*`, () => ({
      status: 200,
      body: { state: 'done', message: `erased ${form}`, subject: { email: form } },
    }));
  });
});
afterAll(async () => {
  await hooks?.close();
  await env?.close();
});

/** Whether a text names the subject in any of its forms, whatever the case. */
const namesSubject = (text: string) => forms.some((form) => text.toLowerCase().includes(form.toLowerCase()));

describe('a certificate never names the subject', () => {
  it("blanks the identifier out of each destination's task id and evidence, before and after retention", async () => {
    const org = await seedOrganization(env.deps, 'cert-redaction');
    const { caller } = callerFor(env.deps, { pat: org.pat });
    for (const n of forms.keys())
      await caller.integrations.create({
        workspaceId: org.workspace.id,
        name: `Job system ${n}`,
        type: 'WEBHOOK',
        accountId: null,
        config: {
          mode: 'async',
          initiate: { url: `${hooks.url}/jobs-${n}`, trackingIdPath: '$.id' },
          status: {
            method: 'GET',
            url: `${hooks.url}/jobs-${n}/{{trackingId}}`,
            statusPath: '$.state',
            successValues: ['done'],
          },
        },
      });
    const created = await caller.deletionRequests.createInWorkspace({ workspaceId: org.workspace.id, identifier });
    const worker = await startTestWorker(env);
    try {
      expect((await waitForRequest(env, created.id)).status).toBe('SUCCESS');
    } finally {
      await worker.stop();
    }
    // The destinations did return the identifier: the task ids are kept as given for status checks.
    const stored = await env.deps.prisma.integrationRequest.findMany({ where: { deletionRequestId: created.id } });
    expect(stored.map((ir) => ir.trackingId).sort()).toEqual(forms.map((form) => `erase:${form}`).sort());

    const signed = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, created.id);
    const destinations = (signed.certificate as { destinations: { vendorTaskId: string }[] }).destinations;
    expect(destinations.map((d) => d.vendorTaskId)).toEqual(forms.map(() => 'erase:[identifier]'));
    expect(namesSubject(JSON.stringify(signed))).toBe(false);
    expect(verifyCertificate(signed).valid).toBe(true);

    await env.deps.prisma.organization.update({
      where: { id: org.organization.id },
      data: { retentionAction: 'DELETE', retentionDays: 0 },
    });
    expect((await applyRetention(env.deps.prisma, new Date(), org.organization.id)).deleted).toBe(1);
    const afterRetention = await buildCertificate(env.deps.prisma, env.deps.keyring, org.actor, created.id);
    expect(namesSubject(JSON.stringify(afterRetention))).toBe(false);
    expect(verifyCertificate(afterRetention).valid).toBe(true);
  });
});
