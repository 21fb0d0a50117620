import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { startAuth0Fake } from './auth0/fake';
import { startBrazeFake } from './braze/fake';
import { startCustomerioFake } from './customerio/fake';
import { startHubspotFake } from './hubspot/fake';
import { startIntercomFake } from './intercom/fake';
import { startKlaviyoFake } from './klaviyo/fake';
import { startMailchimpFake } from './mailchimp/fake';
import { startSendgridFake } from './sendgrid/fake';
import { startStripeFake } from './stripe/fake';
import { startZendeskFake } from './zendesk/fake';
import { callerFor, createTestEnv, seedOrganization, type TestEnv } from '../test/harness';

// The ten SaaS connectors through the engine: accounts and integrations made through tRPC,
// one request fanned out to all of them, proofs in the audit trail, secrets nowhere in it.
let env: TestEnv;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let fakes: Awaited<ReturnType<typeof startFakes>>;

async function startFakes() {
  const [stripe, hubspot, zendesk, intercom, mailchimp, sendgrid, auth0, braze, klaviyo, customerio] =
    await Promise.all([
      startStripeFake(),
      startHubspotFake(),
      startZendeskFake(),
      startIntercomFake(),
      startMailchimpFake(),
      startSendgridFake({ jobMs: 50 }),
      startAuth0Fake(),
      startBrazeFake({ deleteLagMs: 50 }),
      startKlaviyoFake({ jobMs: 50 }),
      startCustomerioFake({ deleteLagMs: 50 }),
    ]);
  return { stripe, hubspot, zendesk, intercom, mailchimp, sendgrid, auth0, braze, klaviyo, customerio };
}

const SECRETS = {
  STRIPE: { apiKey: 'sk_test_engine_stripe' },
  HUBSPOT: { apiKey: 'pat-engine-hubspot' },
  ZENDESK: { apiKey: 'zd-engine-token' },
  INTERCOM: { apiKey: 'ic-engine-token' },
  MAILCHIMP: { apiKey: 'fedcba9876543210fedcba9876543210-us6' },
  SENDGRID: { apiKey: 'SG.engine' },
  AUTH0: { apiKey: 'engine-client', secretKey: 'engine-client-secret' },
  BRAZE: { apiKey: 'braze-engine-key' },
  KLAVIYO: { apiKey: 'pk_engine' },
  CUSTOMERIO: { apiKey: 'track-key-0123456789', secretKey: 'cio-app-engine' },
} as const;
type SaasType = keyof typeof SECRETS;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.stripe.state.secretKeys.add(SECRETS.STRIPE.apiKey);
  fakes.hubspot.state.tokens.add(SECRETS.HUBSPOT.apiKey);
  fakes.zendesk.state.credentials.add(`admin@acme.example/token:${SECRETS.ZENDESK.apiKey}`);
  fakes.intercom.state.tokens.add(SECRETS.INTERCOM.apiKey);
  fakes.mailchimp.state.apiKeys.add(SECRETS.MAILCHIMP.apiKey);
  fakes.sendgrid.state.apiKeys.add(SECRETS.SENDGRID.apiKey);
  fakes.auth0.state.clients.set(SECRETS.AUTH0.apiKey, SECRETS.AUTH0.secretKey);
  fakes.braze.state.apiKeys.add(SECRETS.BRAZE.apiKey);
  fakes.klaviyo.state.apiKeys.add(SECRETS.KLAVIYO.apiKey);
  fakes.customerio.state.appApiKeys.add(SECRETS.CUSTOMERIO.secretKey);
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  worker = await startTestWorker(env, { concurrency: 10 });
});
afterAll(async () => {
  await worker?.stop();
  await env?.close();
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
});

function configs(): Record<SaasType, Record<string, unknown>> {
  return {
    STRIPE: { baseUrl: fakes.stripe.url },
    HUBSPOT: { baseUrl: fakes.hubspot.url },
    ZENDESK: { subdomain: 'acme', agentEmail: 'admin@acme.example', baseUrl: fakes.zendesk.url },
    INTERCOM: { baseUrl: fakes.intercom.url },
    MAILCHIMP: { listId: fakes.mailchimp.state.listId, baseUrl: fakes.mailchimp.url },
    SENDGRID: { baseUrl: fakes.sendgrid.url },
    AUTH0: { domain: fakes.auth0.state.domain, baseUrl: fakes.auth0.url },
    BRAZE: { restEndpoint: fakes.braze.url, identifierType: 'email' },
    KLAVIYO: { baseUrl: fakes.klaviyo.url },
    CUSTOMERIO: { siteId: fakes.customerio.state.siteId, baseUrl: fakes.customerio.url },
  };
}

async function connectAll(secrets: Partial<Record<SaasType, Record<string, string>>> = {}) {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  for (const [type, config] of Object.entries(configs()) as [SaasType, Record<string, unknown>][]) {
    const accountType = 'secretKey' in SECRETS[type] ? 'API_KEY_SECRET' : 'API_KEY';
    const account = await caller.accounts.create({
      name: `${type} account`,
      integrationType: type,
      type: accountType,
      secrets: secrets[type] ?? SECRETS[type],
    });
    await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: type,
      type,
      accountId: account.id,
      config,
    });
  }
  return { org, caller };
}

function seedSubject(email: string) {
  fakes.stripe.addCustomer(email);
  fakes.hubspot.addContact(email);
  fakes.zendesk.addUser(email);
  fakes.intercom.addContact(email);
  fakes.mailchimp.addMember(email);
  fakes.sendgrid.addContact(email);
  fakes.auth0.addUser(email);
  fakes.braze.addProfile(null, email);
  fakes.klaviyo.addProfile(email);
  fakes.customerio.addPerson(null, email);
}

describe('SaaS connectors through the engine', () => {
  it('deletes the subject everywhere and records each lookup-after-delete as proof in the audit trail', async () => {
    const { org, caller } = await connectAll();
    seedSubject('engine-subject@example.com');
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'engine-subject@example.com',
    });
    const done = await waitForRequest(env, created.id, undefined, 30_000);
    expect(done.integrationRequests.map((ir) => [ir.integrationType, ir.status, ir.attempts])).toEqual(
      expect.arrayContaining(Object.keys(SECRETS).map((type) => [type, 'SUCCESS', 1])),
    );
    expect(done.status).toBe('SUCCESS');

    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    for (const ir of done.integrationRequests) {
      const proof = trail
        .filter((e) => e.integrationRequestId === ir.id)
        .map((e) => (e.details as { evidence?: { verifiedGone?: unknown } } | null)?.evidence?.verifiedGone);
      expect([ir.integrationType, proof.includes(true)]).toEqual([ir.integrationType, true]);
    }
    const text = JSON.stringify(trail);
    for (const secrets of Object.values(SECRETS))
      for (const value of Object.values(secrets)) expect(text).not.toContain(value);
  });

  it("fails at once, with each vendor's words, when the credentials are wrong", async () => {
    const wrong = Object.fromEntries(
      Object.entries(SECRETS).map(([type, s]) => [
        type,
        Object.fromEntries(Object.keys(s).map((k) => [k, `revoked-${k}-0000`])),
      ]),
    );
    const { org, caller } = await connectAll(wrong);
    const created = await caller.deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'anyone@example.com',
    });
    const done = await waitForRequest(env, created.id, undefined, 30_000);
    expect(done.status).toBe('FAILED');
    for (const ir of done.integrationRequests) {
      expect([ir.integrationType, ir.status, ir.attempts]).toEqual([ir.integrationType, 'FAILED', 1]);
      expect(ir.lastError).toMatch(/refused the (client )?credentials/);
    }
  });
});
