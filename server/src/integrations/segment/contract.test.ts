import { DeletionAndSuppressionApi, CreateWorkspaceRegulationV1Input } from '@segment/public-api-sdk-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { segmentConfigSchema } from '@shared/integrations';
import { callsDuring, expectSameRequest } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startSegmentFake } from './fake';
import { TransientError } from '../types';
import { segmentDriver } from './driver';

// Segment's own Public API SDK (generated from its OpenAPI document) against our fake.
let fake: Awaited<ReturnType<typeof startSegmentFake>>;
const TOKEN = 'segment-contract-token';
beforeAll(async () => {
  fake = await startSegmentFake({ initializedMs: 60_000 });
  fake.state.tokens.add(TOKEN);
});
afterAll(() => fake?.close());

const sdk = () => {
  const api = new DeletionAndSuppressionApi(fake.url);
  api.accessToken = TOKEN;
  return api;
};
const ctx = (trackingId: string | null = null) =>
  driverContext(
    'SEGMENT',
    segmentConfigSchema.parse({ baseUrl: fake.url }),
    { apiKey: TOKEN },
    { identifier: 'seg-subject', trackingId },
  );

describe('Segment contract (@segment/public-api-sdk-typescript)', () => {
  it("creates a workspace regulation as the SDK does, and the SDK parses the fake's answer", async () => {
    let ours: Awaited<ReturnType<typeof segmentDriver.requestDeletion>> | undefined;
    const [ourCall] = await callsDuring(fake, async () => (ours = await segmentDriver.requestDeletion(ctx())));
    let parsed: { data?: { regulateId?: string } } | undefined;
    const [sdkCall] = await callsDuring(fake, async () => {
      const input = {
        regulationType: 'SUPPRESS_WITH_DELETE',
        subjectType: 'USER_ID',
        subjectIds: ['seg-subject'],
      } as unknown as CreateWorkspaceRegulationV1Input;
      parsed = (await sdk().createWorkspaceRegulation(input)).body;
    });
    expectSameRequest(ourCall, sdkCall);
    expect(parsed?.data?.regulateId).toMatch(/^[0-9a-f]{24}$/);
    expect(ours).toMatchObject({ kind: 'accepted', trackingId: expect.any(String) });
  });

  it("reads a regulation and deletes it with the SDK's calls", async () => {
    const accepted = await segmentDriver.requestDeletion(ctx());
    const regulateId = accepted.kind === 'accepted' ? accepted.trackingId : '';
    const [ourGet] = await callsDuring(fake, () => segmentDriver.checkStatus!(ctx(regulateId)));
    let regulation: { overallStatus?: unknown; id?: string } | undefined;
    const [sdkGet] = await callsDuring(fake, async () => {
      regulation = (await sdk().getRegulation(regulateId)).body.data?.regulation as typeof regulation;
    });
    expectSameRequest(ourGet, sdkGet);
    expect(regulation).toMatchObject({ id: regulateId, overallStatus: 'INITIALIZED' });

    const [ourDelete] = await callsDuring(fake, () => segmentDriver.cancel!(ctx(regulateId)));
    const second = await segmentDriver.requestDeletion(ctx());
    const secondId = second.kind === 'accepted' ? second.trackingId : '';
    const [sdkDelete] = await callsDuring(fake, () => sdk().deleteRegulation(secondId));
    expect(ourDelete?.method).toBe('DELETE');
    expectSameRequest(
      { ...ourDelete!, path: ourDelete!.path.replace(regulateId, ':id') },
      { ...sdkDelete!, path: sdkDelete!.path.replace(secondId, ':id') },
    );
    expect(fake.state.regulations.has(secondId)).toBe(false);
  });

  describe('429: X-RateLimit-Reset is an RFC 5322 date, errors[].data.msBeforeNext is milliseconds', () => {
    const throttled = async (signals: ('header' | 'body')[]) => {
      fake.state.throttleNext = 1;
      fake.state.retryAfter = '20';
      fake.state.throttleSignals = signals;
      try {
        const context = ctx();
        const outcome = await segmentDriver.requestDeletion(context);
        expect(outcome).toMatchObject({ kind: 'deferred', message: 'Segment rate limit (HTTP 429); queued for 20 s' });
        return outcome.kind === 'deferred' ? outcome.until.getTime() - context.now.getTime() : 0;
      } finally {
        fake.state.retryAfter = '0';
        fake.state.throttleSignals = ['header', 'body'];
      }
    };

    it('waits until the limit lifts, not one second, without using an attempt (deferred)', async () => {
      const both = await throttled(['header', 'body']);
      expect(both).toBeGreaterThanOrEqual(20_000);
      expect(both).toBeLessThan(21_000);
    });

    it('reads the date alone, and the milliseconds alone', async () => {
      // The date has whole seconds: up to one second early, never later than the reset.
      const headerOnly = await throttled(['header']);
      expect(headerOnly).toBeGreaterThan(18_900);
      expect(headerOnly).toBeLessThanOrEqual(20_000);
      expect(await throttled(['body'])).toBe(20_000);
    });

    it('a status check told 429 is tried again when the limit lifts', async () => {
      const accepted = await segmentDriver.requestDeletion(ctx());
      fake.state.throttleNext = 1;
      fake.state.retryAfter = '20';
      const error = await segmentDriver.checkStatus!(
        ctx(accepted.kind === 'accepted' ? accepted.trackingId : ''),
      ).catch((e: unknown) => e);
      fake.state.retryAfter = '0';
      expect(error).toBeInstanceOf(TransientError);
      expect((error as TransientError).retryAfterMs).toBeGreaterThanOrEqual(20_000);
    });
  });
});
