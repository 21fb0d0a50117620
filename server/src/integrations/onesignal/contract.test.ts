import * as OneSignal from '@onesignal/node-onesignal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onesignalConfigSchema } from '@shared/integrations/onesignal';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startOnesignalFake } from './fake';
import { onesignalDriver } from './driver';

// OneSignal's official Node SDK (@onesignal/node-onesignal, generated from OneSignal's OpenAPI
// document), pointed at the fake through its server setting: our requests must equal the SDK's,
// and the SDK must read the fake's answers as OneSignal's.
let fake: Awaited<ReturnType<typeof startOnesignalFake>>;
const KEY = 'os_v2_app_contract0123456789abcdef';
beforeAll(async () => {
  fake = await startOnesignalFake();
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
    'ONESIGNAL',
    onesignalConfigSchema.parse({ appId: fake.state.appId, baseUrl: fake.url, ...config }),
    secrets,
    {
      identifier,
      trackingId,
    },
  );
const sdk = () =>
  new OneSignal.DefaultApi(
    OneSignal.createConfiguration({ restApiKey: KEY, baseServer: new OneSignal.ServerConfiguration(fake.url, {}) }),
  );

describe('OneSignal contract (official @onesignal/node-onesignal)', () => {
  it("looks the user up by external_id, deletes it and looks again for a 404, with the SDK's requests; a look-alike stays", async () => {
    const subject = fake.addUser('user-42', 'fan@example.com');
    const lookalike = fake.addUser('user-420');
    const ours = await callsDuring(fake, async () =>
      expect(await onesignalDriver.requestDeletion(ctx('user-42'))).toMatchObject({
        kind: 'success',
        evidence: { verifiedGone: true, lookupAfterDelete: 'HTTP 404', onesignalId: subject.identity.onesignal_id },
      }),
    );
    const path = `/apps/${fake.state.appId}/users/by/external_id/user-42`;
    expect(ours.map((c) => `${c.method} ${c.path} ${c.reply?.status}`)).toEqual([
      `GET ${path} 200`,
      `DELETE ${path} 200`,
      `GET ${path} 404`,
    ]);
    expect(fake.state.users).toEqual([lookalike]);

    const again = fake.addUser('user-42');
    const [sdkGet] = await callsDuring(fake, async () =>
      expect(await sdk().getUser(fake.state.appId, 'external_id', 'user-42')).toMatchObject({
        identity: { external_id: 'user-42', onesignal_id: again.identity.onesignal_id },
      }),
    );
    const [sdkDelete] = await callsDuring(fake, () => sdk().deleteUser(fake.state.appId, 'external_id', 'user-42'));
    const [sdkGone] = await callsDuring(fake, () =>
      expect(sdk().getUser(fake.state.appId, 'external_id', 'user-42')).rejects.toMatchObject({ code: 404 }),
    );
    expectSameRequest(ours[0], sdkGet);
    expectSameRequest(ours[1], sdkDelete);
    expectSameRequest(ours[2], sdkGone);
  });

  it('by onesignal_id; no user is nothing to delete; a deletion still in progress is polled until 404', async () => {
    const user = fake.addUser(null);
    expect(
      await onesignalDriver.requestDeletion(ctx(user.identity.onesignal_id!, { aliasLabel: 'onesignal_id' })),
    ).toMatchObject({ kind: 'success', evidence: { verifiedGone: true } });
    expect(await onesignalDriver.requestDeletion(ctx('nobody'))).toMatchObject({
      kind: 'success',
      evidence: { userFound: false },
    });
    fake.state.deleteLagMs = 500;
    const slow = fake.addUser('slow-1');
    expect(await onesignalDriver.requestDeletion(ctx('slow-1'))).toMatchObject({
      kind: 'accepted',
      trackingId: slow.identity.onesignal_id,
    });
    expect(await onesignalDriver.checkStatus!(ctx('slow-1', {}, slow.identity.onesignal_id!))).toMatchObject({
      kind: 'pending',
    });
    await new Promise((r) => setTimeout(r, 550));
    expect(await onesignalDriver.checkStatus!(ctx('slow-1', {}, slow.identity.onesignal_id!))).toMatchObject({
      kind: 'success',
      evidence: { verifiedGone: true },
    });
    fake.state.deleteLagMs = 0;
  });

  it("fails at once with OneSignal's words for a bad key; a 429 waits Retry-After without using an attempt", async () => {
    const refused = await onesignalDriver.requestDeletion(ctx('user-1', {}, null, { apiKey: 'revoked' }));
    expect(refused).toMatchObject({ kind: 'failed' });
    expect((refused as { reason: string }).reason).toMatch(
      /^OneSignal refused the credentials: HTTP 403: Access denied/,
    );
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await onesignalDriver.requestDeletion({ ...ctx('user-1'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 4_000),
    });
    // Without Retry-After: the 100 seconds OneSignal asks of non-urgent retries.
    fake.state.throttleNext = 1;
    fake.state.retryAfter = '';
    expect(await onesignalDriver.requestDeletion({ ...ctx('user-1'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 100_000),
    });
    fake.state.retryAfter = '4';
    fake.state.throttleNext = 1;
    await expect(sdk().getUser(fake.state.appId, 'external_id', 'user-1')).rejects.toMatchObject({
      code: 429,
      body: { errors: ['API rate limit exceeded'], limit: 'per_app' },
    });
    expect(await onesignalDriver.testConnection(ctx('x'))).toEqual({
      ok: true,
      message: 'OneSignal accepted the REST API key',
    });
    expect(await onesignalDriver.testConnection(ctx('x', {}, null, { apiKey: 'revoked' }))).toMatchObject({
      ok: false,
    });
  });
});
