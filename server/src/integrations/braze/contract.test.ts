import { Braze } from 'braze-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brazeConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startBrazeFake } from './fake';
import { brazeDriver } from './driver';

// braze-api (the community-maintained typed client; Braze publishes no official Node SDK).
let fake: Awaited<ReturnType<typeof startBrazeFake>>;
const KEY = 'braze-rest-key-0123456789';
beforeAll(async () => {
  fake = await startBrazeFake({ deleteLagMs: 40 });
  fake.state.apiKeys.add(KEY);
});
afterAll(() => fake?.close());

const ctx = (
  identifier: string,
  config: Record<string, unknown> = {},
  trackingId: string | null = null,
  secrets: Record<string, unknown> = { apiKey: KEY },
) =>
  driverContext('BRAZE', brazeConfigSchema.parse({ restEndpoint: fake.url, ...config }), secrets, {
    identifier,
    trackingId,
  });

describe('Braze contract (braze-api)', () => {
  it("exports, deletes and exports again with the client's requests; the client parses the fake's answers", async () => {
    const profile = fake.addProfile('ext-1');
    let trackingId = '';
    const ours = await callsDuring(fake, async () => {
      const accepted = await brazeDriver.requestDeletion(ctx('ext-1'));
      expect(accepted).toMatchObject({ kind: 'accepted', trackingId: profile.braze_id });
      trackingId = accepted.kind === 'accepted' ? accepted.trackingId : '';
      await new Promise((r) => setTimeout(r, 60));
      expect(await brazeDriver.checkStatus!(ctx('ext-1', {}, trackingId))).toMatchObject({
        kind: 'success',
        evidence: { brazeIds: [profile.braze_id], verifiedGone: true },
      });
    });
    expect(ours.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /users/export/ids',
      'POST /users/delete',
      'POST /users/export/ids',
    ]);

    const other = fake.addProfile('ext-1');
    const braze = new Braze(fake.url, KEY);
    const [sdkExport] = await callsDuring(fake, async () =>
      expect(
        await braze.users.export.ids({ external_ids: ['ext-1'], fields_to_export: ['braze_id', 'external_id'] }),
      ).toMatchObject({ message: 'success', users: [{ braze_id: other.braze_id }] }),
    );
    const [sdkDelete] = await callsDuring(fake, async () =>
      expect(await braze.users.delete({ braze_ids: [other.braze_id] })).toMatchObject({
        deleted: 1,
        message: 'success',
      }),
    );
    expectSameRequest(ours[0], sdkExport);
    expectSameRequest(
      { ...ours[1]!, body: ours[1]!.body.replace(profile.braze_id, '{id}') },
      { ...sdkDelete!, body: sdkDelete!.body.replace(other.braze_id, '{id}') },
    );
  });

  it('finds by email or braze_id; no profile is nothing to delete; still exporting means still processing', async () => {
    const byEmail = fake.addProfile(null, 'fan@example.com');
    const accepted = await brazeDriver.requestDeletion(ctx('fan@example.com', { identifierType: 'email' }));
    expect(accepted).toMatchObject({ kind: 'accepted', trackingId: byEmail.braze_id });
    expect(
      await brazeDriver.checkStatus!(ctx('fan@example.com', { identifierType: 'email' }, byEmail.braze_id)),
    ).toMatchObject({ kind: 'pending', status: 'PROCESSING' });
    expect(await brazeDriver.requestDeletion(ctx('nobody', {}))).toMatchObject({
      kind: 'success',
      evidence: { profilesFound: 0 },
    });
  });

  it('deletes 55 profiles sharing an email in requests of at most 50, then proves all gone', async () => {
    const shared = Array.from({ length: 55 }, () => fake.addProfile(null, 'family@example.com'));
    const calls = await callsDuring(fake, async () => {
      const accepted = await brazeDriver.requestDeletion(ctx('family@example.com', { identifierType: 'email' }));
      expect(accepted).toMatchObject({
        kind: 'accepted',
        message: 'Braze accepted the deletion of 55 profile(s) in 2 requests of at most 50',
      });
      await new Promise((r) => setTimeout(r, 60));
      const trackingId = accepted.kind === 'accepted' ? accepted.trackingId : '';
      expect(
        await brazeDriver.checkStatus!(ctx('family@example.com', { identifierType: 'email' }, trackingId)),
      ).toMatchObject({ kind: 'success', evidence: { verifiedGone: true } });
    });
    const deletes = calls.filter((c) => c.path === '/users/delete').map((c) => JSON.parse(c.body).braze_ids.length);
    expect(deletes).toEqual([50, 5]);
    expect(shared.every((p) => !fake.state.profiles.has(p.braze_id))).toBe(true);
  });

  it("fails at once with Braze's message for a bad key; a 429 waits for X-RateLimit-Reset", async () => {
    expect(await brazeDriver.requestDeletion(ctx('ext-9', {}, null, { apiKey: 'revoked' }))).toEqual({
      kind: 'failed',
      reason:
        'Braze refused the credentials: HTTP 401: Invalid API key: the key does not exist or has been deactivated',
    });
    fake.state.throttleNext = 1;
    const outcome = await brazeDriver.requestDeletion(ctx('ext-9'));
    expect(outcome.kind === 'deferred' && outcome.until.getTime() - Date.now()).toBeGreaterThan(4_000);
  });
});
