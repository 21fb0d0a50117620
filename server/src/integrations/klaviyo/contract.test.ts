import { ApiKeySession, DataPrivacyApi, ProfilesApi } from 'klaviyo-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KLAVIYO_REVISION, klaviyoConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startKlaviyoFake } from '../../test/fakes/klaviyo';
import { klaviyoDriver } from './driver';

// Klaviyo's official Node SDK (klaviyo-api, generated from Klaviyo's OpenAPI document).
let fake: Awaited<ReturnType<typeof startKlaviyoFake>>;
const KEY = 'pk_contract_0123456789abcdef';
beforeAll(async () => {
  fake = await startKlaviyoFake({ jobMs: 40 });
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());

const session = () => new ApiKeySession(KEY);
const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  trackingId: string | null = null,
  secrets: Record<string, unknown> = { apiKey: KEY },
) =>
  driverContext('KLAVIYO', klaviyoConfigSchema.parse({ baseUrl: fake.url, ...config }), secrets, {
    identifier,
    trackingId,
  });

describe('Klaviyo contract (official klaviyo-api)', () => {
  it("looks up, requests the deletion job and looks again with the SDK's requests; the SDK parses the fake's answers", async () => {
    const profile = fake.addProfile('shopper@example.com');
    const ours = await callsDuring(fake, async () => {
      const accepted = await klaviyoDriver.requestDeletion(ctx('shopper@example.com'));
      expect(accepted).toMatchObject({ kind: 'accepted', trackingId: profile.id });
      await new Promise((r) => setTimeout(r, 60));
      expect(await klaviyoDriver.checkStatus!(ctx('shopper@example.com', {}, profile.id))).toMatchObject({
        kind: 'success',
        evidence: { verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /api/profiles',
      'POST /api/data-privacy-deletion-jobs',
      'GET /api/profiles',
    ]);

    fake.addProfile('shopper@example.com');
    const profiles = new ProfilesApi(session());
    profiles.basePath = fake.url;
    const privacy = new DataPrivacyApi(session());
    privacy.basePath = fake.url;
    const [sdkGet] = await callsDuring(fake, async () =>
      expect((await profiles.getProfiles({ filter: 'equals(email,"shopper@example.com")' })).body).toMatchObject({
        data: [{ type: 'profile', attributes: { email: 'shopper@example.com' } }],
      }),
    );
    const [sdkJob] = await callsDuring(fake, async () => {
      const { response } = await privacy.createDataPrivacyDeletionJob({
        data: {
          type: 'data-privacy-deletion-job',
          attributes: { profile: { data: { type: 'profile', attributes: { email: 'shopper@example.com' } } } },
        },
      } as Parameters<DataPrivacyApi['createDataPrivacyDeletionJob']>[0]);
      expect(response.status).toBe(202);
    });
    expectSameRequest(ours[0], sdkGet);
    expectSameRequest(ours[1], sdkJob);
    for (const call of [...ours, sdkGet!, sdkJob!]) expect(call.headers.revision).toBe(KLAVIYO_REVISION);
  });

  it('by profile id; no profile is nothing to delete; a running job is PROCESSING', async () => {
    const profile = fake.addProfile('byid@example.com');
    fake.state.jobMs = 60_000;
    expect(await klaviyoDriver.requestDeletion(ctx(profile.id, { identifierType: 'profile_id' }))).toMatchObject({
      kind: 'accepted',
      trackingId: profile.id,
    });
    expect(
      await klaviyoDriver.checkStatus!(ctx(profile.id, { identifierType: 'profile_id' }, profile.id)),
    ).toMatchObject({ kind: 'pending', status: 'PROCESSING' });
    fake.state.jobMs = 40;
    expect(await klaviyoDriver.requestDeletion(ctx('nobody@example.com'))).toMatchObject({
      kind: 'success',
      evidence: { profileFound: false },
    });
  });

  it("fails at once with Klaviyo's detail for a bad key; a 429 waits Retry-After", async () => {
    expect(await klaviyoDriver.requestDeletion(ctx('x@example.com', {}, null, { apiKey: 'pk_revoked' }))).toEqual({
      kind: 'failed',
      reason: 'Klaviyo refused the credentials: HTTP 401: Missing or invalid private key.',
    });
    fake.state.throttleNext = 1;
    const now = new Date();
    expect(await klaviyoDriver.requestDeletion({ ...ctx('x@example.com'), now })).toMatchObject({
      kind: 'deferred',
      until: new Date(now.getTime() + 3_000),
    });
  });
});
