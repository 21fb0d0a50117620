import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshdeskConfigSchema } from '@shared/integrations/freshdesk';
import { callsDuring } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startFreshdeskFake } from './fake';
import { freshdeskDriver } from './driver';

// Freshdesk publishes no OpenAPI document and no official Node SDK (SOURCES.md): the fake and
// these checks follow the API reference's words, quoted in SOURCES.md for every field used.
let fake: Awaited<ReturnType<typeof startFreshdeskFake>>;
const KEY = 'fd-contract-0123456789abcdef';
beforeAll(async () => {
  fake = await startFreshdeskFake();
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: KEY },
) =>
  driverContext('FRESHDESK', freshdeskConfigSchema.parse({ domain: 'acme', baseUrl: fake.url, ...config }), secrets, {
    identifier,
  });

describe('Freshdesk contract (API reference v2)', () => {
  it('lists by email (active, then soft-deleted), hard-deletes with force=true and views again as proof; a look-alike stays', async () => {
    const subject = fake.addContact('Shopper@Example.com');
    const earlier = fake.addContact('shopper@example.com', { deleted: true });
    const lookalike = fake.addContact('shopper@example.co');
    const other = fake.addContact('someone@example.com');
    const calls = await callsDuring(fake, async () =>
      expect(await freshdeskDriver.requestDeletion(ctx('shopper@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { contactsFound: 2, contactIds: [String(subject.id), String(earlier.id)], verifiedGone: true },
      }),
    );
    expect(calls.map((c) => `${c.method} ${c.path}?${c.query.toString()} ${c.reply?.status}`)).toEqual([
      'GET /api/v2/contacts?email=shopper%40example.com&per_page=100 200',
      'GET /api/v2/contacts?email=shopper%40example.com&state=deleted&per_page=100 200',
      `DELETE /api/v2/contacts/${subject.id}/hard_delete?force=true 204`,
      `DELETE /api/v2/contacts/${earlier.id}/hard_delete?force=true 204`,
      `GET /api/v2/contacts/${subject.id}? 404`,
      `GET /api/v2/contacts/${earlier.id}? 404`,
    ]);
    // "Basic authentication … the API key as the username and any random character as the password".
    for (const call of calls)
      expect(Buffer.from(String(call.headers.authorization).slice(6), 'base64').toString()).toBe(`${KEY}:X`);
    expect(fake.state.erased).toEqual([subject.id, earlier.id]);
    expect([...fake.state.contacts.keys()]).toEqual([lookalike.id, other.id]);
  });

  it('by contact id; no contact is nothing to delete; an id that is not one fails without a call', async () => {
    const contact = fake.addContact('byid@example.com');
    expect(
      await freshdeskDriver.requestDeletion(ctx(String(contact.id), { identifierType: 'contact_id' })),
    ).toMatchObject({ kind: 'success', evidence: { contactIds: [String(contact.id)], verifiedGone: true } });
    expect(
      await freshdeskDriver.requestDeletion(ctx(String(contact.id), { identifierType: 'contact_id' })),
    ).toMatchObject({ kind: 'success', evidence: { contactsFound: 0 } });
    expect(await freshdeskDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { contactsFound: 0 },
    });
    const calls = await callsDuring(fake, async () =>
      expect(await freshdeskDriver.requestDeletion(ctx('../agents/1', { identifierType: 'contact_id' }))).toEqual({
        kind: 'failed',
        reason: 'The identifier is not a Freshdesk contact id (digits)',
      }),
    );
    expect(calls).toEqual([]);
  });

  it('without force=true Freshdesk refuses to hard-delete a contact that is not soft-deleted', async () => {
    const contact = fake.addContact('noforce@example.com');
    const refused = await fetch(`${fake.url}/api/v2/contacts/${contact.id}/hard_delete`, {
      method: 'DELETE',
      headers: { authorization: `Basic ${Buffer.from(`${KEY}:X`).toString('base64')}` },
    });
    expect(refused.status).toBe(400);
    expect(fake.state.contacts.has(contact.id)).toBe(true);
  });

  it("fails at once with Freshdesk's words for a bad key; a 429 waits Retry-After without using an attempt", async () => {
    expect(await freshdeskDriver.requestDeletion(ctx('x@example.com', {}, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason: 'Freshdesk refused the credentials: HTTP 401: You have to be logged in to perform this action.',
    });
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await freshdeskDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 9_000),
    });
    expect(await freshdeskDriver.testConnection(ctx('x@example.com'))).toEqual({
      ok: true,
      message: 'Freshdesk accepted the API key',
    });
  });
});
