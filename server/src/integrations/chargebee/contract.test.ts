import Chargebee from 'chargebee';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chargebeeConfigSchema } from '@shared/integrations/chargebee';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startChargebeeFake } from './fake';
import { chargebeeDriver } from './driver';

// Chargebee's official Node SDK (`chargebee`), pointed at the fake through its own host settings
// and with its request validation on: our requests must equal the SDK's, and the SDK must read
// the fake's answers as Chargebee's.
let fake: Awaited<ReturnType<typeof startChargebeeFake>>;
const KEY = 'test_cb_contract_0123456789abcdef';
beforeAll(async () => {
  fake = await startChargebeeFake({ deleteLagMs: 400 });
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  trackingId: string | null = null,
  secrets: Record<string, unknown> = { apiKey: KEY },
) =>
  driverContext(
    'CHARGEBEE',
    chargebeeConfigSchema.parse({ site: 'acme-test', baseUrl: fake.url, ...config }),
    secrets,
    {
      identifier,
      trackingId,
    },
  );
/** The SDK builds `{protocol}://{site}{hostSuffix}:{port}`: "127" + ".0.0.1" is the loopback fake. */
const sdk = () =>
  new Chargebee({
    site: '127',
    hostSuffix: '.0.0.1',
    protocol: 'http',
    port: Number(new URL(fake.url).port),
    apiKey: KEY,
    enableValidation: true,
  } as ConstructorParameters<typeof Chargebee>[0]);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Chargebee contract (official chargebee SDK)', () => {
  it("lists by email, schedules the deletion with the payment methods and retrieves until 404, with the SDK's requests; a look-alike stays", async () => {
    const subject = fake.addCustomer('payer@example.com');
    const lookalike = fake.addCustomer('Payer@Example.com.evil');
    const ours = await callsDuring(fake, async () => {
      const accepted = await chargebeeDriver.requestDeletion(ctx('payer@example.com'));
      expect(accepted).toMatchObject({ kind: 'accepted', trackingId: subject.id });
      expect(await chargebeeDriver.checkStatus!(ctx('payer@example.com', {}, subject.id))).toMatchObject({
        kind: 'pending',
        status: 'PROCESSING',
      });
      await wait(450);
      expect(await chargebeeDriver.checkStatus!(ctx('payer@example.com', {}, subject.id))).toMatchObject({
        kind: 'success',
        evidence: { customerIds: [subject.id], verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path} ${c.reply?.status}`)).toEqual([
      'GET /api/v2/customers 200',
      `POST /api/v2/customers/${subject.id}/delete 200`,
      `GET /api/v2/customers/${subject.id} 200`,
      `GET /api/v2/customers/${subject.id} 404`,
    ]);
    expect(fake.state.paymentMethodsDeleted).toEqual([subject.id]);
    expect(fake.state.customers.has(lookalike.id)).toBe(true);

    const again = fake.addCustomer('payer@example.com', subject.id);
    const [sdkList] = await callsDuring(fake, async () => {
      const { list } = await sdk().customer.list({ email: { is: 'payer@example.com' }, limit: 100 });
      expect(list.map((entry) => entry.customer.id)).toEqual([again.id]);
    });
    const [sdkRetrieve] = await callsDuring(fake, async () =>
      expect((await sdk().customer.retrieve(again.id)).customer).toMatchObject({ id: again.id, deleted: false }),
    );
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect((await sdk().customer.delete(again.id, { delete_payment_method: true })).customer).toMatchObject({
        id: again.id,
        deleted: true,
      }),
    );
    await wait(450);
    const [sdkGone] = await callsDuring(fake, () =>
      expect(sdk().customer.retrieve(again.id)).rejects.toMatchObject({
        http_status_code: 404,
        api_error_code: 'resource_not_found',
      }),
    );
    expectSameRequest(ours[0], sdkList);
    expectSameRequest(ours[1], sdkDelete);
    expectSameRequest(ours[2], sdkRetrieve);
    expectSameRequest(ours[3], sdkGone);
  });

  it('every customer with the email; by customer id; no customer is nothing to delete', async () => {
    const a = fake.addCustomer('many@example.com');
    const b = fake.addCustomer('many@example.com');
    const calls = await callsDuring(fake, async () => {
      const outcome = await chargebeeDriver.requestDeletion(ctx('many@example.com'));
      expect(outcome).toMatchObject({ kind: 'accepted', trackingId: `${a.id},${b.id}` });
    });
    expect(calls.filter((c) => c.method === 'GET').length).toBe(1);
    const byId = fake.addCustomer(null);
    expect(await chargebeeDriver.requestDeletion(ctx(byId.id, { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'accepted',
      trackingId: byId.id,
    });
    expect(await chargebeeDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 0 },
    });
    expect(await chargebeeDriver.requestDeletion(ctx('cb_missing', { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 0 },
    });
  });

  it("fails at once with Chargebee's words for a bad key; a 429 waits Retry-After without using an attempt", async () => {
    expect(await chargebeeDriver.requestDeletion(ctx('x@example.com', {}, null, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason: 'Chargebee refused the credentials: HTTP 401: Sorry, authentication failed. Invalid api key',
    });
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await chargebeeDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 5_000),
    });
    fake.state.throttleNext = 1;
    await expect(sdk().customer.list({ limit: 1 })).rejects.toMatchObject({
      http_status_code: 429,
      api_error_code: 'api_request_limit_exceeded',
    });
    expect(await chargebeeDriver.testConnection(ctx('x@example.com'))).toEqual({
      ok: true,
      message: 'Chargebee accepted the API key',
    });
  });
});
