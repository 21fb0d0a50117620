import { Client } from '@hubspot/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startHubspotFake } from './fake';
import { hubspotDriver } from './driver';

// HubSpot's official Node SDK (@hubspot/api-client, generated from HubSpot's OpenAPI documents).
let fake: Awaited<ReturnType<typeof startHubspotFake>>;
const TOKEN = 'pat-eu1-contract-token';
beforeAll(async () => {
  fake = await startHubspotFake();
  fake.state.tokens.add(TOKEN);
});
afterAll(() => fake?.close());

const sdk = (accessToken = TOKEN) => new Client({ accessToken, basePath: fake.url, numberOfApiCallRetries: 0 });
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: TOKEN },
) => driverContext('HUBSPOT', hubspotConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, { identifier });

describe('HubSpot contract (official @hubspot/api-client)', () => {
  it("looks up, GDPR-deletes and looks up again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const contact = fake.addContact('gdpr@example.com');
    const ours = await callsDuring(fake, async () => {
      expect(await hubspotDriver.requestDeletion(ctx('gdpr@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { contactFound: true, contactId: contact.id, verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /crm/v3/objects/contacts/gdpr%40example.com',
      'POST /crm/v3/objects/contacts/gdpr-delete',
      'GET /crm/v3/objects/contacts/gdpr%40example.com',
    ]);
    expect(fake.state.contacts.has(contact.id)).toBe(false);

    const other = fake.addContact('sdk@example.com');
    const client = sdk();
    const [sdkGet] = await callsDuring(fake, async () => {
      const found = await client.crm.contacts.basicApi.getById(
        'sdk@example.com',
        undefined,
        undefined,
        undefined,
        false,
        'email',
      );
      expect(found).toMatchObject({ id: other.id, properties: { email: 'sdk@example.com' } });
      expect(found.createdAt).toBeInstanceOf(Date);
    });
    const [sdkPurge] = await callsDuring(fake, () =>
      client.crm.contacts.basicApi.purge({ objectId: 'sdk@example.com', idProperty: 'email' }),
    );
    const [sdkGone] = await callsDuring(fake, async () => {
      await expect(
        client.crm.contacts.basicApi.getById('sdk@example.com', undefined, undefined, undefined, false, 'email'),
      ).rejects.toMatchObject({ code: 404 });
    });
    const anon = (call: (typeof ours)[number]) => ({
      ...call,
      path: call.path.replace(/gdpr%40example\.com|sdk%40example\.com/, '{id}'),
      body: call.body.replace(/gdpr@example\.com|sdk@example\.com/, '{id}'),
    });
    expectSameRequest(anon(ours[0]!), anon(sdkGet!));
    expectSameRequest(anon(ours[1]!), anon(sdkPurge!));
    expectSameRequest(anon(ours[2]!), anon(sdkGone!));
  });

  it('deletes by record id too; no contact is still a GDPR delete (HubSpot blocklists the email)', async () => {
    const contact = fake.addContact('byid@example.com');
    expect(await hubspotDriver.requestDeletion(ctx(contact.id, { identifierType: 'contact_id' }))).toMatchObject({
      kind: 'success',
      evidence: { contactId: contact.id },
    });
    expect(await hubspotDriver.requestDeletion(ctx('never@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { contactFound: false, verifiedGone: true },
    });
    expect(fake.state.blocklist.has('never@example.com')).toBe(true);
  });

  it("fails at once with HubSpot's message for a bad token; a 429 waits for the policy window", async () => {
    const refused = await hubspotDriver.requestDeletion(ctx('x@example.com', {}, { apiKey: 'pat-revoked' }));
    expect(refused).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^HubSpot refused the credentials: HTTP 401: Authentication credentials not found/),
    });
    await expect(sdk('pat-revoked').crm.contacts.basicApi.getPage(1)).rejects.toMatchObject({ code: 401 });
    fake.state.throttleNext = 1;
    const now = new Date();
    const waited = await hubspotDriver.requestDeletion({ ...ctx('x@example.com'), now });
    expect(waited).toMatchObject({ kind: 'deferred', until: new Date(now.getTime() + 10_000) });
    fake.state.throttleNext = 1;
    fake.state.throttlePolicy = 'DAILY';
    const daily = await hubspotDriver.requestDeletion({ ...ctx('x@example.com'), now });
    // The account's midnight is not in the answer: tried again at the top of the next hour.
    const nextHour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000 + 3_600_000);
    expect(daily.kind === 'deferred' && daily.until.toISOString()).toBe(nextHour.toISOString());
  });
});
