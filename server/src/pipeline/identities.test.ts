import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskIdentifier } from '@shared/mask-identifier';
import { connectAnalytics, startAnalyticsFakes, type AnalyticsFakes } from '../test/analytics-setup';
import { createCustomerDatabase, type CustomerDatabase } from '../test/customer-db';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForRequest } from '../test/engine';
import { startStripeFake } from '../integrations/stripe/fake';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../test/harness';
import { startMariaDb, type MariaDbServer } from '../test/stores/mariadb';
import { mixpanelRateLimiter } from '../integrations/mixpanel/rate-limiter';

// One person, every identifier: a request made with an email alone reaches each system by the
// identifier that system knows the person by, found by identity lookups before the fan-out.
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let analytics: AnalyticsFakes;
let stripe: Awaited<ReturnType<typeof startStripeFake>>;
let customer: CustomerDatabase;
let mariadb: MariaDbServer;
let billing: Awaited<ReturnType<MariaDbServer['createDatabase']>>;
let identityHook: { url: string; secret: string | null; received: unknown[]; close(): Promise<void> };

/** The company's own identity service: answers the person's anonymous id for their user id, signed requests only. */
async function startIdentityHook() {
  const state = { secret: null as string | null, received: [] as unknown[] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const payload = new Webhook(state.secret!).verify(body, req.headers as Record<string, string>) as {
          identifiers: { type: string; value: string }[];
        };
        state.received.push(payload);
        const userId = payload.identifiers.find((i) => i.type === 'user_id')?.value;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ identifiers: userId ? [{ type: 'anonymous_id', value: `anon-${userId}` }] : [] }));
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/identities`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

beforeAll(async () => {
  [analytics, stripe, customer, mariadb, identityHook] = await Promise.all([
    startAnalyticsFakes(),
    startStripeFake(),
    createCustomerDatabase(),
    startMariaDb(),
    startIdentityHook(),
  ]);
  billing = await mariadb.createDatabase(
    `CREATE TABLE billing (email varchar(200) NOT NULL, stripe_customer_id varchar(64) NOT NULL);`,
  );
  stripe.state.secretKeys.add('sk_test_identities');
  env = await createTestEnv(FAST_ENGINE_CONFIG);
  server = await startTestServer(env.deps);
  worker = await startTestWorker(env, { concurrency: 8 });
  mixpanelRateLimiter.intervalMs = 160;
  analytics.mixpanel.state.minIntervalMs = 100;
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await env?.close();
  await Promise.all([analytics?.close(), stripe?.close(), customer?.close(), billing?.close(), identityHook?.close()]);
  await mariadb?.stop();
});

/** An organization whose workspace knows people by email, user id, Stripe customer id and anonymous id. */
async function setUpOrganization() {
  const org = await seedOrganization(env.deps);
  const { caller } = callerFor(env.deps, { pat: org.pat });
  await caller.identities.createType({ name: 'stripe_customer_id', description: 'Stripe customer' });
  await caller.identities.createType({ name: 'anonymous_id' });
  const appDb = await caller.accounts.create({
    name: 'app db',
    integrationType: 'POSTGRES',
    type: 'DATABASE',
    secrets: customer.credentials,
  });
  const billingDb = await caller.accounts.create({
    name: 'billing db',
    integrationType: 'MYSQL',
    type: 'DATABASE',
    secrets: billing.credentials,
  });
  // In order: the app's users (PostgreSQL), billing (MariaDB), then the identity service, which needs the user id.
  await caller.identities.createLookup({
    workspaceId: org.workspace.id,
    kind: 'sql',
    name: 'app users',
    accountId: appDb.id,
    query: 'SELECT id::text AS user_id FROM users WHERE email = {{email}}',
    columns: { user_id: 'user_id' },
    timeoutMs: 5_000,
    maxRows: 10,
  });
  await caller.identities.createLookup({
    workspaceId: org.workspace.id,
    kind: 'sql',
    name: 'billing',
    accountId: billingDb.id,
    query: 'SELECT stripe_customer_id FROM billing WHERE email = {{email}}',
    columns: { stripe_customer_id: 'stripe_customer_id' },
    timeoutMs: 5_000,
    maxRows: 10,
  });
  const hook = await caller.identities.createLookup({
    workspaceId: org.workspace.id,
    kind: 'webhook',
    name: 'identity service',
    url: identityHook.url,
    timeoutMs: 5_000,
    maxIdentifiers: 20,
  });
  identityHook.secret = hook.secret!;

  const store = await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'App database',
    type: 'POSTGRES',
    accountId: appDb.id,
    config: {
      rules: [
        { table: 'orders', identifierColumns: ['user_id'], action: 'delete' },
        { table: 'events', identifierColumns: ['user_ref'], action: 'delete' },
        { table: 'users', identifierColumns: ['id'], action: 'delete' },
      ],
    },
  });
  const stripeAccount = await caller.accounts.create({
    name: 'stripe',
    integrationType: 'STRIPE',
    type: 'API_KEY',
    secrets: { apiKey: 'sk_test_identities' },
  });
  const stripeIntegration = await caller.integrations.create({
    workspaceId: org.workspace.id,
    name: 'Stripe',
    type: 'STRIPE',
    accountId: stripeAccount.id,
    config: { baseUrl: stripe.url, identifierType: 'customer_id' },
  });
  const vendors = await connectAnalytics(caller, org.workspace.id, analytics, { only: ['MIXPANEL', 'SEGMENT'] });
  await caller.identities.setIntegrationType({ integrationId: store.id, consumesType: 'user_id' });
  await caller.identities.setIntegrationType({
    integrationId: stripeIntegration.id,
    consumesType: 'stripe_customer_id',
  });
  await caller.identities.setIntegrationType({ integrationId: vendors.MIXPANEL!.id, consumesType: 'user_id' });
  await caller.identities.setIntegrationType({ integrationId: vendors.SEGMENT!.id, consumesType: 'anonymous_id' });
  return { org, caller };
}

async function createOverRest(org: { pat: string; workspaceApiKey: string }, body: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
    body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('one person, every identifier', () => {
  it('an email-only request: lookups on PostgreSQL, MariaDB and a webhook find the other identifiers, and each system gets its own', async () => {
    const { org, caller } = await setUpOrganization();
    const email = `person-${Date.now()}@example.com`;
    const userId = await customer.seedUser(email, { orders: 2, events: 3 });
    const lookAlikeId = await customer.seedUser(`not-${email}`, { orders: 1, events: 2 });
    await billing.pool.query('INSERT INTO billing VALUES (?, ?), (?, ?)', [
      email,
      'cus_person',
      `not-${email}`,
      'cus_other',
    ]);
    const person = stripe.addCustomer(email);
    const other = stripe.addCustomer(`not-${email}`);
    await billing.pool.query('UPDATE billing SET stripe_customer_id = ? WHERE email = ?', [person.id, email]);
    await billing.pool.query('UPDATE billing SET stripe_customer_id = ? WHERE email = ?', [other.id, `not-${email}`]);

    const created = await createOverRest(org, { identifier: email });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const done = await waitForRequest(env, id, undefined, 30_000);
    expect(done.integrationRequests.map((ir) => [ir.integrationName, ir.status, ir.lastError])).toEqual(
      expect.arrayContaining([
        ['App database', 'SUCCESS', null],
        ['Stripe', 'SUCCESS', null],
        ['Mixpanel', 'SUCCESS', null],
        ['Segment', 'SUCCESS', null],
      ]),
    );
    expect(done.status).toBe('SUCCESS');

    // Each identifier with where it came from; the webhook was sent what the SQL lookups found before it.
    const identifiers = await caller.identities.requestIdentifiers({ deletionRequestId: id });
    expect(identifiers.map((i) => [i.type, i.source, i.primary])).toEqual([
      ['email', 'request', true],
      ['user_id', 'app users', false],
      ['stripe_customer_id', 'billing', false],
      ['anonymous_id', 'identity service', false],
    ]);
    // Masked until revealed.
    expect(identifiers.map((i) => i.maskedValue)).toEqual([
      maskIdentifier(email),
      '***',
      expect.stringMatching(/^cu\*\*\*..$/),
      expect.stringMatching(/^an?\*\*\*.{1,2}$/),
    ]);
    expect(identityHook.received).toContainEqual({
      identifiers: expect.arrayContaining([
        { type: 'email', value: email },
        { type: 'user_id', value: userId },
        { type: 'stripe_customer_id', value: person.id },
      ]),
    });

    // The app database by user id: the person's rows are gone, the look-alike's stay.
    expect(await customer.count('SELECT count(*) FROM users WHERE id = $1', [userId])).toBe(0);
    expect(await customer.count('SELECT count(*) FROM orders WHERE user_id = $1', [userId])).toBe(0);
    expect(await customer.count('SELECT count(*) FROM events WHERE user_ref = $1', [userId])).toBe(0);
    expect(await customer.count('SELECT count(*) FROM orders WHERE user_id = $1', [lookAlikeId])).toBe(1);
    expect(await customer.count('SELECT count(*) FROM events WHERE user_ref = $1', [lookAlikeId])).toBe(2);
    // Stripe by customer id, Mixpanel by user id, Segment by anonymous id.
    expect(stripe.state.deleted.has(person.id)).toBe(true);
    expect(stripe.state.deleted.has(other.id)).toBe(false);
    expect([...analytics.mixpanel.state.tasks.values()].map((t) => t.distinctIds)).toContainEqual([userId]);
    expect([...analytics.segment.state.regulations.values()].map((r) => r.subjectIds)).toContainEqual([
      `anon-${userId}`,
    ]);

    // The audit trail names each identifier found by type and source, never by value.
    const found = await env.db.prisma.auditLog.findMany({ where: { deletionRequestId: id, action: 'identity.found' } });
    expect(found.map((entry) => entry.summary)).toEqual([
      'Identifier of type user_id found by the lookup "app users"',
      'Identifier of type stripe_customer_id found by the lookup "billing"',
      'Identifier of type anonymous_id found by the lookup "identity service"',
    ]);
    // The reveal of one identifier is audited on its own.
    const userIdRow = identifiers.find((i) => i.type === 'user_id')!;
    expect(
      await caller.identities.revealRequestIdentifier({ deletionRequestId: id, identifierId: userIdRow.id }),
    ).toEqual({ value: userId });
    expect(
      await env.db.prisma.auditLog.count({ where: { deletionRequestId: id, action: 'request.identifier_revealed' } }),
    ).toBe(1);
    // The erasure check finds the person through an identifier a lookup found.
    expect(await caller.erasureChecks.check({ identifier: person.id })).toMatchObject({
      found: true,
      deletionRequestId: id,
    });
  });

  it('sends each identifier of a type under its own Idempotency-Key, so a receiver that keeps answers by key deletes them all', async () => {
    // A receiver that does what an Idempotency-Key asks: a key seen before gets the stored
    // answer, and nothing is done again (as Stripe and most payment and CRM APIs do).
    const answers = new Map<string, string>();
    const deleted: string[] = [];
    const keys: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const key = String(req.headers['idempotency-key']);
        keys.push(key);
        if (!answers.has(key)) {
          deleted.push((JSON.parse(body) as { email: string }).email);
          answers.set(key, JSON.stringify({ deleted: true }));
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(answers.get(key));
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const org = await seedOrganization(env.deps);
      const { caller } = callerFor(env.deps, { pat: org.pat });
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/erase`;
      const crm = await caller.integrations.create({
        workspaceId: org.workspace.id,
        name: 'CRM',
        type: 'WEBHOOK',
        config: { mode: 'sync', initiate: { method: 'POST', url, body: '{"email":"{{identifier}}"}' } },
      });
      await caller.identities.setIntegrationType({ integrationId: crm.id, consumesType: 'email' });
      const stamp = Date.now();
      const emails = [`work-${stamp}@example.com`, `home-${stamp}@example.org`];
      const created = await createOverRest(org, {
        identifier: emails[0],
        identifiers: [{ type: 'email', value: emails[1] }],
      });
      expect(created.status).toBe(201);
      const done = await waitForRequest(env, created.body.id as string, undefined, 30_000);
      expect(done.integrationRequests.map((ir) => ir.status)).toEqual(['SUCCESS']);
      // Both emails reached the receiver and were deleted: one key each, none repeated.
      expect(deleted.sort()).toEqual([...emails].sort());
      expect(new Set(keys).size).toBe(2);
      // Each key is the integration request's and the identifier's ids: stable on a repeat, and no personal data.
      const irId = done.integrationRequests[0]!.id;
      const identifiers = await caller.identities.requestIdentifiers({ deletionRequestId: done.id });
      expect(keys.sort()).toEqual(identifiers.map((i) => `${irId}:${i.id}`).sort());
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });

  it('an integration whose identifier type the request lacks ends as such, not as "nothing found"; a failing lookup is shown', async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    const stripeAccount = await caller.accounts.create({
      name: 'stripe',
      integrationType: 'STRIPE',
      type: 'API_KEY',
      secrets: { apiKey: 'sk_test_identities' },
    });
    const byPhone = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Stripe by phone',
      type: 'STRIPE',
      accountId: stripeAccount.id,
      config: { baseUrl: stripe.url },
    });
    await caller.identities.setIntegrationType({ integrationId: byPhone.id, consumesType: 'phone' });
    const created = await createOverRest(org, { identifier: `nophone-${Date.now()}@example.com` });
    const done = await waitForRequest(env, created.body.id as string);
    expect(done.integrationRequests[0]).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(done.integrationRequests[0]!.lastError).toMatch(/^No identifier of type phone in this request/);
    expect(stripe.state.customers.size).toBeGreaterThan(0);

    // A webhook lookup that refuses (400): the steps fail with the lookup's name and reason, on the trail too.
    const refusing = http.createServer((_req, res) => res.writeHead(400).end('{}'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    await caller.identities.createLookup({
      workspaceId: org.workspace.id,
      kind: 'webhook',
      name: 'broken service',
      url: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/`,
      timeoutMs: 2_000,
      maxIdentifiers: 5,
    });
    await caller.identities.setIntegrationType({ integrationId: byPhone.id, consumesType: null });
    const second = await createOverRest(org, { identifier: `lookup-${Date.now()}@example.com` });
    const failed = await waitForRequest(env, second.body.id as string);
    refusing.close();
    expect(failed.integrationRequests[0]!.lastError).toMatch(/^Identity lookup "broken service" failed: /);
    expect(
      await env.db.prisma.auditLog.count({
        where: { deletionRequestId: failed.id, action: 'identity.lookup_failed' },
      }),
    ).toBeGreaterThan(0);
  });

  it("a Stripe lookup finds the person's customers by email (as written and in lower case); Stripe then deletes them by id", async () => {
    const org = await seedOrganization(env.deps);
    const { caller } = callerFor(env.deps, { pat: org.pat });
    await caller.identities.createType({ name: 'stripe_customer_id' });
    const account = await caller.accounts.create({
      name: 'stripe',
      integrationType: 'STRIPE',
      type: 'API_KEY',
      secrets: { apiKey: 'sk_test_identities' },
    });
    await caller.identities.createLookup({
      workspaceId: org.workspace.id,
      kind: 'stripe',
      name: 'stripe customers',
      accountId: account.id,
      identifierType: 'stripe_customer_id',
      baseUrl: stripe.url,
      maxIdentifiers: 5,
    });
    const byId = await caller.integrations.create({
      workspaceId: org.workspace.id,
      name: 'Stripe by customer id',
      type: 'STRIPE',
      accountId: account.id,
      config: { baseUrl: stripe.url, identifierType: 'customer_id' },
    });
    await caller.identities.setIntegrationType({ integrationId: byId.id, consumesType: 'stripe_customer_id' });
    const email = `stripe-${Date.now()}@example.com`;
    const person = stripe.addCustomer(email);
    const other = stripe.addCustomer(`x${email}`);
    const created = await createOverRest(org, { identifier: email.replace('stripe-', 'Stripe-') });
    const done = await waitForRequest(env, created.body.id as string);
    expect(done.integrationRequests.map((ir) => [ir.status, ir.lastError])).toEqual([['SUCCESS', null]]);
    expect(stripe.state.deleted.has(person.id)).toBe(true);
    expect(stripe.state.deleted.has(other.id)).toBe(false);
    const identifiers = await caller.identities.requestIdentifiers({ deletionRequestId: done.id });
    expect(identifiers.map((i) => [i.type, i.source])).toEqual([
      ['email', 'request'],
      ['stripe_customer_id', 'stripe customers'],
    ]);
    // A Stripe lookup needs a Stripe account and a type of the organization.
    await expect(
      caller.identities.createLookup({
        workspaceId: org.workspace.id,
        kind: 'stripe',
        name: 'wrong type',
        accountId: account.id,
        identifierType: 'shoe_size',
        maxIdentifiers: 5,
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^identifierType: /) });
  });

  it('bad identifiers are a 400 naming the field, and nothing is written', async () => {
    const org = await seedOrganization(env.deps);
    const before = await env.db.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ identifier: 'a@example.com', identifiers: [{ type: 'shoe_size', value: '42' }] }, /identifiers\.0\.type/],
      [
        { identifier: 'a@example.com', identifiers: [{ type: 'email', value: 'jane-at-example' }] },
        /identifiers\.0\.value/,
      ],
      [
        { identifier: 'a@example.com', identifiers: [{ type: 'phone', value: '555 0100' }] },
        /identifiers\.0\.value.*E\.164/,
      ],
      [{ identifier: 'a@example.com', identifiers: [{ type: 'email', value: ' A@example.com' }] }, /identifiers\.0/],
      [{ identifier: 'u_1', identifierType: 'Not A Type' }, /identifierType/],
      [
        {
          identifier: 'a@example.com',
          identifiers: Array.from({ length: 50 }, (_, i) => ({ type: 'user_id', value: `u${i}` })),
        },
        /identifiers/,
      ],
    ];
    for (const [body, field] of cases) {
      const answer = await createOverRest(org, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(answer.body)).toMatch(field);
      expect(JSON.stringify(answer.body)).not.toMatch(/jane-at-example|555 0100/);
    }
    expect(await env.db.prisma.deletionRequest.count({ where: { organizationId: org.organization.id } })).toBe(before);
  });
});
