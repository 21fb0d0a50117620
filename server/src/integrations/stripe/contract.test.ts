import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_API_VERSION, stripeConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startStripeFake } from './fake';
import { stripeDriver } from './driver';

// Stripe's official Node SDK (`stripe`, devDependency) against the same loopback fake.
let fake: Awaited<ReturnType<typeof startStripeFake>>;
const KEY = 'sk_test_contract_0123456789';
beforeAll(async () => {
  fake = await startStripeFake();
  fake.state.secretKeys.add(KEY);
});
afterAll(() => fake?.close());

const sdk = () => {
  const url = new URL(fake.url);
  return new Stripe(KEY, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    apiVersion: STRIPE_API_VERSION as Stripe.LatestApiVersion,
    maxNetworkRetries: 0,
  });
};
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: KEY },
) => driverContext('STRIPE', stripeConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, { identifier });

describe('Stripe contract (official `stripe` SDK)', () => {
  it("finds by email, deletes and re-reads each customer with the SDK's requests; the SDK parses the fake's answers", async () => {
    const a = fake.addCustomer('jane@example.com');
    const b = fake.addCustomer('jane@example.com');
    fake.addCustomer('other@example.com');
    const ours = await callsDuring(fake, async () => {
      const outcome = await stripeDriver.requestDeletion(ctx('jane@example.com'));
      expect(outcome).toMatchObject({
        kind: 'success',
        evidence: {
          customersFound: 2,
          verifiedGone: true,
          lookupAfterDelete: { [a.id]: 'deleted: true', [b.id]: 'deleted: true' },
        },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v1/customers',
      `DELETE /v1/customers/${a.id}`,
      `DELETE /v1/customers/${b.id}`,
      `GET /v1/customers/${a.id}`,
      `GET /v1/customers/${b.id}`,
    ]);

    const c = fake.addCustomer('sdk@example.com');
    const stripe = sdk();
    let list: Stripe.ApiList<Stripe.Customer> | undefined;
    const [sdkList] = await callsDuring(
      fake,
      async () => (list = await stripe.customers.list({ email: 'jane@example.com', limit: 100 })),
    );
    const [sdkDel] = await callsDuring(fake, async () =>
      expect(await stripe.customers.del(c.id)).toMatchObject({ id: c.id, deleted: true }),
    );
    const [sdkGet] = await callsDuring(fake, async () =>
      expect(await stripe.customers.retrieve(c.id)).toMatchObject({ id: c.id, deleted: true }),
    );
    expect(list?.data).toEqual([]);

    const same = (call: (typeof ours)[number], id: string) => ({ ...call, path: call.path.replace(id, '{id}') });
    expectSameRequest(ours[0], sdkList);
    expectSameRequest(same(ours[1]!, a.id), same(sdkDel!, c.id));
    expectSameRequest(same(ours[3]!, a.id), same(sdkGet!, c.id));
    for (const call of [...ours, sdkList!, sdkDel!, sdkGet!])
      expect(call.headers['stripe-version']).toBe(STRIPE_API_VERSION);
  });

  it('reads every page of customers with the email, as given and in lower case', async () => {
    const many = Array.from({ length: 101 }, () => fake.addCustomer('bulk@example.com'));
    // The SDK asks for the second page so.
    const [sdkNext] = await callsDuring(fake, () =>
      sdk().customers.list({ email: 'bulk@example.com', limit: 100, starting_after: many[99]!.id }),
    );
    const ours = await callsDuring(fake, async () => {
      expect(await stripeDriver.requestDeletion(ctx('bulk@example.com'))).toMatchObject({
        kind: 'success',
        evidence: { customersFound: 101 },
      });
    });
    const lists = ours.filter((c) => c.method === 'GET' && c.path === '/v1/customers');
    expect(lists.map((c) => c.query.get('starting_after'))).toEqual([null, many[99]!.id]);
    expectSameRequest(lists[1], sdkNext);
    for (const customer of many) expect(fake.state.customers.has(customer.id)).toBe(false);

    // Stored in lower case, asked for as typed: found.
    const stored = fake.addCustomer('jane.case@example.com');
    expect(await stripeDriver.requestDeletion(ctx('Jane.Case@Example.com'))).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 1, customerIds: [stored.id] },
    });
  });

  it('deletes by customer id; no such customer is nothing to delete', async () => {
    const customer = fake.addCustomer(null);
    expect(await stripeDriver.requestDeletion(ctx(customer.id, { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'success',
      evidence: { customerIds: [customer.id], verifiedGone: true },
    });
    expect(await stripeDriver.requestDeletion(ctx('cus_missing', { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 0 },
    });
    expect(await stripeDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 0 },
    });
  });

  it('says when a test-mode key searched test-mode data only, in the outcome, its evidence and the connection test', async () => {
    const live = 'sk_live_contract_0123456789';
    fake.state.secretKeys.add(live);
    const inTest = await stripeDriver.requestDeletion(ctx('nobody@example.com'));
    expect(inTest).toMatchObject({
      kind: 'success',
      message:
        "Stripe has no customer with this email: nothing to delete (test-mode key: Stripe's live data was not searched)",
      evidence: { mode: 'test', customersFound: 0 },
    });
    const inLive = await stripeDriver.requestDeletion(ctx('nobody@example.com', {}, { apiKey: live }));
    expect(inLive).toMatchObject({
      message: 'Stripe has no customer with this email: nothing to delete',
      evidence: { mode: 'live' },
    });
    const restricted = await stripeDriver.testConnection!(ctx('', {}, { apiKey: KEY.replace('sk_', 'rk_') }));
    expect(restricted.ok).toBe(false); // not a key the fake knows
    fake.state.secretKeys.add(KEY.replace('sk_', 'rk_'));
    expect(await stripeDriver.testConnection!(ctx('', {}, { apiKey: KEY.replace('sk_', 'rk_') }))).toMatchObject({
      ok: true,
      message: expect.stringContaining('test-mode key, so deletions reach test-mode data only'),
    });
    expect((await stripeDriver.testConnection!(ctx('', {}, { apiKey: live }))).message).not.toContain('test-mode');
  });

  it("fails at once with Stripe's message for a bad key, and waits on a 429", async () => {
    const refused = await stripeDriver.requestDeletion(ctx('jane@example.com', {}, { apiKey: 'sk_test_revoked_000' }));
    expect(refused).toEqual({
      kind: 'failed',
      reason: 'Stripe refused the credentials: HTTP 401: Invalid API Key provided: sk_test_********',
    });
    await expect(sdk().customers.list({ limit: 1 }, { apiKey: 'sk_test_revoked_000' })).rejects.toMatchObject({
      type: 'StripeAuthenticationError',
      message: 'Invalid API Key provided: sk_test_********',
    });
    fake.state.throttleNext = 1;
    expect(await stripeDriver.requestDeletion(ctx('jane@example.com'))).toMatchObject({
      kind: 'deferred',
      message: expect.stringContaining('Stripe rate limit (HTTP 429)'),
    });
  });
});
