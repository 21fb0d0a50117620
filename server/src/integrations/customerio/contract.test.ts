import http from 'node:http';
import { APIClient, IdentifierType, TrackClient } from 'customerio-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerioConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startCustomerioFake } from './fake';
import { customerioDriver } from './driver';

// Customer.io's official Node SDK (customerio-node) against the same fake.
let fake: Awaited<ReturnType<typeof startCustomerioFake>>;
const APP_KEY = 'app-key-0123456789';
beforeAll(async () => {
  fake = await startCustomerioFake({ deleteLagMs: 40 });
  fake.state.appApiKeys.add(APP_KEY);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  trackingId: string | null = null,
  secrets?: Record<string, unknown>,
) =>
  driverContext(
    'CUSTOMERIO',
    customerioConfigSchema.parse({ siteId: fake.state.siteId, baseUrl: fake.url, ...config }),
    secrets ?? { apiKey: fake.state.trackApiKey, secretKey: APP_KEY },
    { identifier, trackingId },
  );

describe('Customer.io contract (official customerio-node)', () => {
  it("finds by email, suppresses through the Track API and polls the App API with the SDK's requests; the SDK parses the fake's answers", async () => {
    const person = fake.addPerson('u-1', 'person@example.com');
    const ours = await callsDuring(fake, async () => {
      const accepted = await customerioDriver.requestDeletion(ctx('person@example.com'));
      expect(accepted).toMatchObject({
        kind: 'accepted',
        trackingId: person.cio_id,
        message:
          'Customer.io accepted the suppression of 1 person(s): deleted, and their identifiers cannot be added again',
      });
      await new Promise((r) => setTimeout(r, 60));
      expect(await customerioDriver.checkStatus!(ctx('person@example.com', {}, person.cio_id))).toMatchObject({
        kind: 'success',
        message: 'Customer.io suppressed 1 person(s); the App API now answers 404 for each',
        evidence: { cioIds: [person.cio_id], method: 'suppress', verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v1/customers',
      `POST /api/v1/customers/cio_${person.cio_id}/suppress`,
      `GET /v1/customers/${person.cio_id}/attributes`,
    ]);

    const other = fake.addPerson('u-2', 'person@example.com');
    // The SDK speaks https to the host name only; these request options point it at the loopback fake.
    const loopback = { agent: new http.Agent(), protocol: 'http:', port: Number(new URL(fake.url).port) };
    const api = new APIClient(APP_KEY, { url: `${fake.url}/v1`, ...loopback });
    const track = new TrackClient(fake.state.siteId, fake.state.trackApiKey, {
      url: `${fake.url}/api/v1`,
      ...loopback,
    });
    const [sdkFind] = await callsDuring(fake, async () =>
      expect(await api.getCustomersByEmail('person@example.com')).toMatchObject({
        results: [{ cio_id: other.cio_id }],
      }),
    );
    const [sdkSuppress] = await callsDuring(fake, () => track.suppress(`cio_${other.cio_id}`));
    await new Promise((r) => setTimeout(r, 60));
    const [sdkGone] = await callsDuring(fake, async () =>
      expect(api.getAttributes(other.cio_id, IdentifierType.CioId)).rejects.toMatchObject({ statusCode: 404 }),
    );
    const id = (call: (typeof ours)[number], value: string) => ({ ...call, path: call.path.replace(value, '{id}') });
    expectSameRequest(ours[0], sdkFind);
    expectSameRequest(id(ours[1]!, person.cio_id), id(sdkSuppress!, other.cio_id));
    expectSameRequest(id(ours[2]!, person.cio_id), id(sdkGone!, other.cio_id));
  });

  it('suppressed, a later update by the SDK cannot bring the person back; deleted only (the option), it can', async () => {
    const loopback = { agent: new http.Agent(), protocol: 'http:', port: Number(new URL(fake.url).port) };
    const track = new TrackClient(fake.state.siteId, fake.state.trackApiKey, {
      url: `${fake.url}/api/v1`,
      ...loopback,
    });
    const eraseThenUpdate = async (id: string, config: Record<string, unknown>) => {
      const person = fake.addPerson(id, `${id}@example.com`);
      const calls = await callsDuring(fake, async () => {
        const accepted = await customerioDriver.requestDeletion(ctx(id, { identifierType: 'id', ...config }));
        await new Promise((r) => setTimeout(r, 60));
        const done = await customerioDriver.checkStatus!(
          ctx(id, { identifierType: 'id', ...config }, accepted.kind === 'accepted' ? accepted.trackingId : ''),
        );
        expect(done).toMatchObject({ kind: 'success', evidence: { verifiedGone: true } });
      });
      // The application, unaware, sends an update for the same person afterwards.
      await track.identify(id, { email: `${id}@example.com`, plan: 'pro' });
      return { person, calls, back: [...fake.state.people.values()].some((p) => p.id === id) };
    };

    const suppressed = await eraseThenUpdate('u-suppressed', {});
    expect(suppressed.calls.map((c) => c.method)).toContain('POST');
    expect(suppressed.back).toBe(false);

    const deleted = await eraseThenUpdate('u-deleted', { method: 'delete' });
    expect(deleted.calls.map((c) => `${c.method} ${c.path}`)).toContain(
      `DELETE /api/v1/customers/cio_${deleted.person.cio_id}`,
    );
    expect(deleted.back).toBe(true);
  });

  it('finds by id; no person is nothing to delete; still present is PROCESSING', async () => {
    const person = fake.addPerson('u-3', null);
    fake.state.deleteLagMs = 60_000;
    expect(await customerioDriver.requestDeletion(ctx('u-3', { identifierType: 'id' }))).toMatchObject({
      kind: 'accepted',
      trackingId: person.cio_id,
    });
    expect(await customerioDriver.checkStatus!(ctx('u-3', { identifierType: 'id' }, person.cio_id))).toMatchObject({
      kind: 'pending',
      status: 'PROCESSING',
    });
    fake.state.deleteLagMs = 40;
    expect(await customerioDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { peopleFound: 0 },
    });
  });

  it("fails at once with Customer.io's words for a bad key; a 429 waits Retry-After", async () => {
    expect(
      await customerioDriver.requestDeletion(
        ctx('x@example.com', {}, null, { apiKey: fake.state.trackApiKey, secretKey: 'revoked' }),
      ),
    ).toEqual({
      kind: 'failed',
      reason: 'Customer.io refused the credentials: HTTP 401: Unauthorized request: provide a valid App API key',
    });
    const person = fake.addPerson(null, 'wrong-track@example.com');
    expect(
      await customerioDriver.requestDeletion(
        ctx('wrong-track@example.com', {}, null, { apiKey: 'wrong', secretKey: APP_KEY }),
      ),
    ).toEqual({ kind: 'failed', reason: 'Customer.io refused the credentials: HTTP 401: Unauthorized request' });
    expect(fake.state.people.has(person.cio_id)).toBe(true);
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await customerioDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 2_000),
    });
  });
});
