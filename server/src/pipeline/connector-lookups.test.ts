import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedDetails } from '../services/audit/recorded-exchanges';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { startAuth0Fake } from '../integrations/auth0/fake';
import { startHubspotFake } from '../integrations/hubspot/fake';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';

// The Auth0 and HubSpot stand-ins are the ones the connectors' contract tests drive with the vendors' official SDKs.
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let auth0: Awaited<ReturnType<typeof startAuth0Fake>>;
let hubspot: Awaited<ReturnType<typeof startHubspotFake>>;
const CLIENT_ID = 'm2m-lookup-client';
const CLIENT_SECRET = 'm2m-lookup-secret-0123456789';
const HUBSPOT_TOKEN = 'pat-eu1-lookup-token';

beforeAll(async () => {
  [auth0, hubspot] = await Promise.all([startAuth0Fake(), startHubspotFake()]);
  auth0.state.clients.set(CLIENT_ID, CLIENT_SECRET);
  hubspot.state.tokens.add(HUBSPOT_TOKEN);
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  server = await startTestServer(env.deps);
  worker = await startTestWorker(env, { concurrency: 4 });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await env?.close();
  await Promise.all([auth0?.close(), hubspot?.close()]);
});

async function createOverRest(org: { pat: string; workspaceApiKey: string }, identifier: string) {
  const response = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
    body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

describe('connector lookups', () => {
  it("an Auth0 lookup finds the person's users by email; Auth0 then deletes them by user id, and the granted token is recorded nowhere", async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.identities.createType({ name: 'auth0_user_id' });
    const account = await caller.accounts.create({
      name: 'auth0',
      integrationType: 'AUTH0',
      type: 'API_KEY_SECRET',
      secrets: { apiKey: CLIENT_ID, secretKey: CLIENT_SECRET },
    });
    await caller.identities.createLookup({
      workspaceId: org.workspace.id,
      kind: 'auth0',
      name: 'auth0 users',
      accountId: account.id,
      domain: auth0.state.domain,
      baseUrl: auth0.url,
      identifierType: 'auth0_user_id',
      maxIdentifiers: 5,
    });
    const byId = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Auth0 by user id',
      type: 'AUTH0',
      accountId: account.id,
      config: { domain: auth0.state.domain, baseUrl: auth0.url, identifierType: 'user_id' },
    });
    await caller.identities.setIntegrationType({ integrationId: byId.id, consumesType: 'auth0_user_id' });
    const email = `auth0-${Date.now()}@example.com`;
    const person = auth0.addUser(email);
    const social = auth0.addUser(email, 'google-oauth2');
    const other = auth0.addUser(`x${email}`);
    const tokensBefore = new Set(auth0.state.accessTokens.keys());

    // Auth0 keeps the email in lower case: the lookup asks as written and in lower case.
    const done = await waitForRequest(env, await createOverRest(org, email.replace('auth0-', 'Auth0-')));
    expect(done.integrationRequests.map((ir) => [ir.status, ir.lastError])).toEqual([['SUCCESS', null]]);
    expect(auth0.state.users.has(person.user_id)).toBe(false);
    expect(auth0.state.users.has(social.user_id)).toBe(false);
    expect(auth0.state.users.has(other.user_id)).toBe(true);
    const identifiers = await caller.identities.requestIdentifiers({ deletionRequestId: done.id });
    expect(identifiers.map((i) => [i.type, i.source])).toEqual([
      ['email', 'request'],
      ['auth0_user_id', 'auth0 users'],
      ['auth0_user_id', 'auth0 users'],
    ]);
    const granted = [...auth0.state.accessTokens.keys()].filter((token) => !tokensBefore.has(token));
    expect(granted).toHaveLength(1);
    const audit = JSON.stringify(
      (
        await env.db.prisma.auditLog.findMany({
          where: { deletionRequestId: done.id },
          select: { summary: true, details: true, exchanges: true },
        })
      ).map((e) => ({ summary: e.summary, details: recordedDetails(e.details, e.exchanges) })),
    );
    expect(audit).toContain('[access token withheld]');
    expect(audit).not.toContain(granted[0]);
    expect(audit).not.toContain(CLIENT_SECRET);

    // An Auth0 lookup needs an Auth0 account.
    const hubspotAccount = await caller.accounts.create({
      name: 'hubspot',
      integrationType: 'HUBSPOT',
      type: 'API_KEY',
      secrets: { apiKey: HUBSPOT_TOKEN },
    });
    await expect(
      caller.identities.createLookup({
        workspaceId: org.workspace.id,
        kind: 'auth0',
        name: 'wrong account',
        accountId: hubspotAccount.id,
        domain: auth0.state.domain,
        identifierType: 'auth0_user_id',
        maxIdentifiers: 5,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'accountId: an Auth0 lookup needs an Auth0 account' });
  });

  it("a HubSpot lookup finds the person's contact by email; HubSpot then GDPR-deletes it by contact id", async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.identities.createType({ name: 'hubspot_contact_id' });
    const account = await caller.accounts.create({
      name: 'hubspot',
      integrationType: 'HUBSPOT',
      type: 'API_KEY',
      secrets: { apiKey: HUBSPOT_TOKEN },
    });
    await caller.identities.createLookup({
      workspaceId: org.workspace.id,
      kind: 'hubspot',
      name: 'hubspot contacts',
      accountId: account.id,
      baseUrl: hubspot.url,
      identifierType: 'hubspot_contact_id',
      maxIdentifiers: 5,
    });
    const byId = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'HubSpot by contact id',
      type: 'HUBSPOT',
      accountId: account.id,
      config: { baseUrl: hubspot.url, identifierType: 'contact_id' },
    });
    await caller.identities.setIntegrationType({ integrationId: byId.id, consumesType: 'hubspot_contact_id' });
    const email = `hubspot-${Date.now()}@example.com`;
    const person = hubspot.addContact(email);
    const other = hubspot.addContact(`x${email}`);

    const done = await waitForRequest(env, await createOverRest(org, email));
    expect(done.integrationRequests.map((ir) => [ir.status, ir.lastError])).toEqual([['SUCCESS', null]]);
    expect(hubspot.state.contacts.has(person.id)).toBe(false);
    expect(hubspot.state.contacts.has(other.id)).toBe(true);
    const identifiers = await caller.identities.requestIdentifiers({ deletionRequestId: done.id });
    expect(identifiers.map((i) => [i.type, i.source])).toEqual([
      ['email', 'request'],
      ['hubspot_contact_id', 'hubspot contacts'],
    ]);

    // A HubSpot lookup needs a HubSpot account and a type of the organization.
    const auth0Account = await caller.accounts.create({
      name: 'auth0',
      integrationType: 'AUTH0',
      type: 'API_KEY_SECRET',
      secrets: { apiKey: CLIENT_ID, secretKey: CLIENT_SECRET },
    });
    await expect(
      caller.identities.createLookup({
        workspaceId: org.workspace.id,
        kind: 'hubspot',
        name: 'wrong account',
        accountId: auth0Account.id,
        identifierType: 'hubspot_contact_id',
        maxIdentifiers: 5,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'accountId: a HubSpot lookup needs a HubSpot account' });
    await expect(
      caller.identities.createLookup({
        workspaceId: org.workspace.id,
        kind: 'hubspot',
        name: 'wrong type',
        accountId: account.id,
        identifierType: 'shoe_size',
        maxIdentifiers: 5,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^identifierType: /) });
  });
});
