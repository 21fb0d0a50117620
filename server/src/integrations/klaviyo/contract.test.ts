import { readFileSync } from 'node:fs';
import { ApiKeySession, DataPrivacyApi, ProfilesApi } from 'klaviyo-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KLAVIYO_REVISION, klaviyoConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { KlaviyoContract, startKlaviyoFake } from './fake';
import { gitBlobId } from '../../test/fakes/vendor-openapi';
import { klaviyoDriver } from './driver';

// Klaviyo's official Node SDK (klaviyo-api, generated from Klaviyo's OpenAPI document), and the
// document itself (vendor/, see SOURCES.md): every request and answer of the fake is checked by it.
let fake: Awaited<ReturnType<typeof startKlaviyoFake>>;
let contract: KlaviyoContract;
const KEY = 'pk_contract_0123456789abcdef';
/** `git hash-object` of openapi/stable/apis/<name>.json in github.com/klaviyo/openapi at f0a30ba4…. */
const DOCUMENT_BLOBS: Record<string, string> = {
  request_profile_deletion: '9a6617da604b191926020afdd4c55a8f4a7e593b',
  get_profiles: 'f89e1cbe91c72180e6f6e731602e40ed43a4a14d',
  get_profile: '061a2c7d22608328f86539537930b3e733eaae3b',
};
beforeAll(async () => {
  fake = await startKlaviyoFake({ jobMs: 40 });
  fake.state.apiKeys.add(KEY);
  contract = await KlaviyoContract.load();
});
afterAll(() => fake?.close());

const session = () => new ApiKeySession(KEY);
/** A deletion job naming the profile by id alone, which the document refuses (no `attributes`). */
const BARE_ID_JOB = (id: string) =>
  JSON.stringify({
    data: { type: 'data-privacy-deletion-job', attributes: { profile: { data: { type: 'profile', id } } } },
  });
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
  it("vendors Klaviyo's documents of the three operations unchanged, revision " + KLAVIYO_REVISION, () => {
    for (const [name, blob] of Object.entries(DOCUMENT_BLOBS))
      expect(gitBlobId(readFileSync(new URL(`./vendor/${name}.json`, import.meta.url)))).toBe(blob);
    expect(contract.documents.map((d) => [d.version, ...d.operations()])).toEqual([
      [KLAVIYO_REVISION, 'POST /api/data-privacy-deletion-jobs'],
      [KLAVIYO_REVISION, 'GET /api/profiles'],
      [KLAVIYO_REVISION, 'GET /api/profiles/{id}'],
    ]);
  });

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

  it('the profile named by id carries the attributes the document requires, as the SDK sends it', async () => {
    const profile = fake.addProfile('byid-sdk@example.com');
    const [, ours] = await callsDuring(fake, () =>
      klaviyoDriver.requestDeletion(ctx(profile.id, { identifierType: 'profile_id' })),
    );
    const privacy = new DataPrivacyApi(session());
    privacy.basePath = fake.url;
    const [sdkJob] = await callsDuring(fake, () =>
      privacy.createDataPrivacyDeletionJob({
        data: {
          type: 'data-privacy-deletion-job',
          attributes: { profile: { data: { type: 'profile', id: profile.id, attributes: {} } } },
        },
      } as Parameters<DataPrivacyApi['createDataPrivacyDeletionJob']>[0]),
    );
    expect(ours?.reply?.status).toBe(202);
    expectSameRequest(ours, sdkJob);
    // Without attributes the document refuses it, and so does the fake.
    const refused = await fetch(`${fake.url}/api/data-privacy-deletion-jobs`, {
      method: 'POST',
      headers: {
        authorization: `Klaviyo-API-Key ${KEY}`,
        revision: KLAVIYO_REVISION,
        'content-type': 'application/vnd.api+json',
      },
      body: BARE_ID_JOB(profile.id),
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("must have required property 'attributes'");
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

  it("every request the driver and the SDK sent, and every answer of the fake, conform to Klaviyo's documents", () => {
    expect(contract.checkCalls(fake.calls.filter((c) => c.reply?.status !== 400 || !c.body.includes('"id"')))).toEqual(
      [],
    );
    expect(new Set(contract.exercised(fake.calls))).toEqual(
      new Set([
        'GET /api/profiles 200',
        'POST /api/data-privacy-deletion-jobs 202',
        'POST /api/data-privacy-deletion-jobs 400',
        'GET /api/profiles/{id} 200',
        'GET /api/profiles 401',
        'GET /api/profiles 429',
      ]),
    );
  });
});
