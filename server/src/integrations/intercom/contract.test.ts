import { IntercomClient } from 'intercom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intercomConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startIntercomFake } from './fake';
import { intercomDriver } from './driver';

// Intercom's official Node SDK (intercom-client, generated from Intercom's OpenAPI document).
let fake: Awaited<ReturnType<typeof startIntercomFake>>;
const TOKEN = 'dG9rOmNvbnRyYWN0';
beforeAll(async () => {
  fake = await startIntercomFake();
  fake.state.tokens.add(TOKEN);
});
afterAll(() => fake?.close());

const sdk = (token = TOKEN) => new IntercomClient({ token, baseUrl: fake.url, maxRetries: 0 });
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: TOKEN },
) => driverContext('INTERCOM', intercomConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, { identifier });

describe('Intercom contract (official intercom-client)', () => {
  it("searches, deletes and fetches again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const contact = fake.addContact('lead@example.com');
    const ours = await callsDuring(fake, async () => {
      expect(await intercomDriver.requestDeletion(ctx('lead@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { contactIds: [contact.id], verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /contacts/search',
      `DELETE /contacts/${contact.id}`,
      `GET /contacts/${contact.id}`,
    ]);

    const other = fake.addContact('lead@example.com');
    const client = sdk();
    const [sdkSearch] = await callsDuring(fake, async () => {
      const page = await client.contacts.search({
        query: { field: 'email', operator: '=', value: 'lead@example.com' },
      });
      expect(page.data).toMatchObject([{ id: other.id, email: 'lead@example.com' }]);
    });
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect(await client.contacts.delete({ contact_id: other.id })).toMatchObject({ id: other.id, deleted: true }),
    );
    const [sdkFind] = await callsDuring(fake, async () =>
      expect(client.contacts.find({ contact_id: other.id })).rejects.toMatchObject({ statusCode: 404 }),
    );
    const id = (call: (typeof ours)[number], value: string) => ({ ...call, path: call.path.replace(value, '{id}') });
    expectSameRequest(ours[0], sdkSearch);
    expectSameRequest(id(ours[1]!, contact.id), id(sdkDelete!, other.id));
    expectSameRequest(id(ours[2]!, contact.id), id(sdkFind!, other.id));
    for (const call of [...ours, sdkSearch!, sdkDelete!, sdkFind!])
      expect(call.headers['intercom-version']).toBe('2.14');
  });

  it('deletes every contact with the email, on every page of the search, asking for the next page as the SDK does', async () => {
    const shared = Array.from({ length: 51 }, () => fake.addContact('shared@example.com'));
    const query = { field: 'email', operator: '=', value: 'shared@example.com' } as const;
    // The SDK's request for the page after the 50th contact.
    const [sdkNext] = await callsDuring(fake, async () => {
      const page = await sdk().contacts.search({
        query,
        pagination: { per_page: 150, starting_after: shared[49]!.id },
      });
      expect(page.data.map((c) => c.id)).toEqual([shared[50]!.id]);
    });
    const ours = await callsDuring(fake, async () => {
      expect(await intercomDriver.requestDeletion(ctx('shared@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { contactsFound: 51 },
      });
    });
    const searches = ours.filter((c) => c.path === '/contacts/search');
    expect(searches).toHaveLength(2);
    expectSameRequest(searches[1], sdkNext);
    for (const contact of shared) expect(fake.state.contacts.has(contact.id)).toBe(false);
  });

  it('finds by external_id or takes the contact id; none found is nothing to delete', async () => {
    const byExternal = fake.addContact('x1@example.com', 'user-77');
    expect(await intercomDriver.requestDeletion(ctx('user-77', { identifierType: 'external_id' }))).toMatchObject({
      kind: 'success',
      evidence: { contactIds: [byExternal.id] },
    });
    const byId = fake.addContact('x2@example.com');
    expect(await intercomDriver.requestDeletion(ctx(byId.id, { identifierType: 'contact_id' }))).toMatchObject({
      kind: 'success',
      evidence: { contactIds: [byId.id] },
    });
    // None found: searched again later (a status check) before the person is called absent.
    expect(await intercomDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'accepted',
      status: 'PENDING',
      pollAfterMs: 300_000,
    });
    expect(await intercomDriver.checkStatus!(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { contactsFound: 0, searches: 2 },
    });
  });

  it('searches again before calling a person absent: a contact created minutes before is found and deleted', async () => {
    fake.state.searchLagMs = 150;
    const fresh = fake.addContact('just-signed-up@example.com');
    fake.state.searchLagMs = 0;
    const first = await intercomDriver.requestDeletion(ctx('just-signed-up@example.com'));
    expect(first).toMatchObject({ kind: 'accepted', status: 'PENDING', trackingId: 'search-again' });
    await new Promise((r) => setTimeout(r, 200));
    expect(await intercomDriver.checkStatus!(ctx('just-signed-up@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { contactIds: [fresh.id], verifiedGone: true },
    });
    expect(fake.state.contacts.has(fresh.id)).toBe(false);
  });

  it("fails at once with Intercom's message for a bad token, and waits for X-RateLimit-Reset on a 429", async () => {
    expect(await intercomDriver.requestDeletion(ctx('x@example.com', {}, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason: 'Intercom refused the credentials: HTTP 401: Access Token Invalid',
    });
    await expect(sdk('revoked').contacts.list()).rejects.toMatchObject({ statusCode: 401 });
    fake.state.throttleNext = 1;
    const outcome = await intercomDriver.requestDeletion(ctx('x@example.com'));
    expect(outcome.kind).toBe('deferred');
    const waitMs = outcome.kind === 'deferred' ? outcome.until.getTime() - Date.now() : 0;
    expect(waitMs).toBeGreaterThan(7_000);
    expect(waitMs).toBeLessThanOrEqual(10_000);
  });
});
