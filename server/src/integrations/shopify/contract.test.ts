import { createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOPIFY_API_VERSION, shopifyConfigSchema, shopifyGraphqlUrl } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { CUSTOMERS_BY_EMAIL, REQUEST_DATA_ERASURE, customerGid, emailSearch, shopifyDriver } from './driver';
import { startShopifyFake } from './fake';

// Shopify's official Admin API client (@shopify/admin-api-client) against the same fake, sending
// the connector's two operations: the requests must be the same, and the client reads the answers.
let fake: Awaited<ReturnType<typeof startShopifyFake>>;
const TOKEN = 'shpat_contract_0123456789';
const SHOP = 'acme.myshopify.com';
beforeAll(async () => {
  fake = await startShopifyFake();
  fake.state.accessTokens.add(TOKEN);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  secrets: Record<string, unknown> = { apiKey: TOKEN },
) =>
  driverContext('SHOPIFY', shopifyConfigSchema.parse({ shopDomain: SHOP, baseUrl: fake.url, ...config }), secrets, {
    identifier,
  });

/** The client speaks https to the shop's domain only; its fetch is pointed at the loopback fake. */
const sdk = (accessToken = TOKEN) =>
  createAdminApiClient({
    storeDomain: SHOP,
    apiVersion: SHOPIFY_API_VERSION,
    accessToken,
    customFetchApi: (url, init) => fetch(String(url).replace(`https://${SHOP}`, fake.url), init),
  });

describe('Shopify contract (official @shopify/admin-api-client)', () => {
  it("finds the customer by email and requests the erasure with the client's requests; the client reads the answers", async () => {
    const customer = fake.addCustomer('shopper@example.com');
    const twin = fake.addCustomer('shopper@example.co');
    const ours = await callsDuring(fake, async () =>
      expect(await shopifyDriver.requestDeletion(ctx('Shopper@Example.com'))).toMatchObject({
        kind: 'success',
        evidence: { customersFound: 1, customerIds: [customer.id], erasureRequested: true, verifiedGone: false },
      }),
    );
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      `POST /admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
      `POST /admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
    ]);
    expect(customer.erasureRequestedAt).not.toBeNull();
    expect(twin.erasureRequestedAt).toBeNull();

    const client = sdk();
    const [sdkSearch] = await callsDuring(fake, async () => {
      const { data, errors } = await client.request(CUSTOMERS_BY_EMAIL, {
        variables: { query: emailSearch('Shopper@Example.com'), first: 50 },
      });
      expect(errors).toBeUndefined();
      expect(data).toEqual({
        customers: {
          nodes: [{ id: customer.id, email: 'shopper@example.com' }],
          pageInfo: { hasNextPage: false, endCursor: null },
        },
      });
    });
    const [sdkErase] = await callsDuring(fake, async () => {
      const { data, errors } = await client.request(REQUEST_DATA_ERASURE, { variables: { customerId: customer.id } });
      expect(errors).toBeUndefined();
      expect(data).toEqual({ customerRequestDataErasure: { customerId: customer.id, userErrors: [] } });
    });
    expectSameRequest(ours[0], sdkSearch, ['X-Shopify-Access-Token']);
    expectSameRequest(ours[1], sdkErase, ['X-Shopify-Access-Token']);
  });

  it('quotes the email in the search; by customer id; an id naming no customer is nothing to erase', async () => {
    expect(emailSearch('a"b\\c@example.com')).toBe('email:"a\\"b\\\\c@example.com"');
    const tricky = fake.addCustomer('o"neil@example.com');
    expect(await shopifyDriver.requestDeletion(ctx('o"neil@example.com'))).toMatchObject({
      evidence: { customerIds: [tricky.id] },
    });
    const byId = fake.addCustomer('byid@example.com');
    const number = byId.id.split('/').pop()!;
    expect(customerGid(number)).toBe(byId.id);
    expect(await shopifyDriver.requestDeletion(ctx(number, { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'success',
      evidence: { customerIds: [byId.id] },
    });
    expect(
      await shopifyDriver.requestDeletion(ctx('gid://shopify/Customer/1', { identifierType: 'customer_id' })),
    ).toMatchObject({
      kind: 'success',
      evidence: { customersFound: 0 },
    });
    expect(await shopifyDriver.requestDeletion(ctx('not-an-id', { identifierType: 'customer_id' }))).toMatchObject({
      kind: 'failed',
    });
  });

  it("the query-cost throttle and a 429 wait without using an attempt; a wrong token fails in Shopify's words", async () => {
    fake.addCustomer('busy@example.com');
    const now = new Date();
    fake.state.throttleNext = 1;
    // (252 requested − 52 available) / 100 per second = 2 s.
    expect(await shopifyDriver.requestDeletion({ ...ctx('busy@example.com'), now })).toEqual({
      kind: 'deferred',
      until: new Date(now.getTime() + 2_000),
      message: 'Shopify query cost throttled (THROTTLED); queued for 2 s',
    });
    fake.state.tooManyNext = 1;
    expect(await shopifyDriver.requestDeletion({ ...ctx('busy@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 2_000),
    });
    expect(await shopifyDriver.requestDeletion(ctx('busy@example.com', {}, { apiKey: 'shpat_revoked' }))).toEqual({
      kind: 'failed',
      reason:
        'Shopify refused the credentials: HTTP 401: [API] Invalid API key or access token (unrecognized login or wrong password)',
    });
    const { errors } = await sdk('shpat_revoked').request(CUSTOMERS_BY_EMAIL, {
      variables: { query: emailSearch('x@example.com'), first: 1 },
    });
    expect(errors?.networkStatusCode).toBe(401);
    expect(await shopifyDriver.testConnection(ctx('x'))).toEqual({
      ok: true,
      message: 'Shopify accepted the access token',
    });
  });

  it('only a shop domain is accepted; the base URL replaces the host', () => {
    expect(shopifyConfigSchema.safeParse({ shopDomain: 'shop.example.com' }).success).toBe(false);
    const config = shopifyConfigSchema.parse({ shopDomain: 'Acme.myshopify.com' });
    expect(shopifyGraphqlUrl(config)).toBe(`https://acme.myshopify.com/admin/api/${SHOPIFY_API_VERSION}/graphql.json`);
    expect(shopifyGraphqlUrl({ ...config, baseUrl: 'http://127.0.0.1:9' })).toBe(
      `http://127.0.0.1:9/admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
    );
  });
});
