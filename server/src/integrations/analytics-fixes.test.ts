import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  amplitudeConfigSchema,
  googleAnalyticsConfigSchema,
  mixpanelConfigSchema,
  posthogConfigSchema,
  segmentConfigSchema,
} from '@shared/integrations';
import { startAnalyticsFakes, type AnalyticsFakes } from '../test/analytics-setup';
import { driverContext } from '../test/driver-context';
import { amplitudeDriver } from './amplitude/driver';
import { parseTracking } from './amplitude/status';
import { googleAnalyticsDriver } from './google-analytics/driver';
import { mixpanelDriver } from './mixpanel/driver';
import { mixpanelRateLimiter } from './mixpanel/rate-limiter';
import { posthogDriver } from './posthog/driver';
import { segmentDriver } from './segment/driver';

// Regressions of issue 12: each of these failed against the drivers and fakes before the fix.
let fakes: AnalyticsFakes;
beforeAll(async () => {
  fakes = await startAnalyticsFakes();
  mixpanelRateLimiter.intervalMs = 160;
});
afterAll(() => fakes?.close());

describe('PostHog persons delete', () => {
  const ctxFor = (identifier: string, config: Record<string, unknown>) =>
    driverContext(
      'POSTHOG',
      posthogConfigSchema.parse({ projectId: fakes.posthog.state.projectId, baseUrl: fakes.posthog.url, ...config }),
      { apiKey: 'phx_personal_api_key_1234' },
      { identifier },
    );

  it('deletes the session recordings, and keeps the events when told to by leaving delete_events out', async () => {
    const person = fakes.posthog.addPerson(['keep-events']);
    const outcome = await posthogDriver.requestDeletion(ctxFor('keep-events', { deleteEvents: false }));
    expect(outcome).toMatchObject({
      kind: 'success',
      evidence: { eventsDeletionQueued: false, recordingsDeleted: true },
    });
    // PostHog reads any present value as "on": the fake does the same, so a sent "false" would show here.
    expect(fakes.posthog.state.deleted.find((d) => d.uuid === person.uuid)).toMatchObject({
      deleteEvents: false,
      deleteRecordings: true,
    });
    const call = fakes.posthog.calls.find((c) => c.method === 'DELETE' && c.path.endsWith(`/persons/${person.id}/`))!;
    expect([...call.query.keys()]).toEqual(['delete_recordings']);
  });

  it('sends both flags by default', async () => {
    const person = fakes.posthog.addPerson(['delete-all']);
    await posthogDriver.requestDeletion(ctxFor('delete-all', {}));
    expect(fakes.posthog.state.deleted.find((d) => d.uuid === person.uuid)).toMatchObject({
      deleteEvents: true,
      deleteRecordings: true,
    });
  });
});

describe('Amplitude tracking', () => {
  const ctxFor = (identifier: string, config: Record<string, unknown> = {}, trackingId: string | null = null) =>
    driverContext(
      'AMPLITUDE',
      amplitudeConfigSchema.parse({ baseUrl: fakes.amplitude.url, requester: 'privacy@example.com', ...config }),
      { apiKey: fakes.amplitude.state.apiKey, secretKey: fakes.amplitude.state.secretKey },
      { identifier, trackingId },
    );

  it("tracks exactly the amplitude ids this request added, not the other subjects in the same day's job", async () => {
    fakes.amplitude.state.stagingMs = 60_000;
    const first = fakes.amplitude.addUser('amp-first');
    const second = fakes.amplitude.addUser('amp-second');
    const a = await amplitudeDriver.requestDeletion(ctxFor('amp-first'));
    const b = await amplitudeDriver.requestDeletion(ctxFor('amp-second'));
    expect(a.kind === 'accepted' && parseTracking(a.trackingId).flatMap((t) => t.amplitudeIds)).toEqual([
      String(first),
    ]);
    expect(b.kind === 'accepted' && parseTracking(b.trackingId).flatMap((t) => t.amplitudeIds)).toEqual([
      String(second),
    ]);
    // Canceling the second subject's deletion leaves the first one scheduled.
    const canceled = await amplitudeDriver.cancel!(
      ctxFor('amp-second', {}, b.kind === 'accepted' ? b.trackingId : null),
    );
    expect(canceled.canceled).toBe(true);
    const jobIds = [...fakes.amplitude.state.jobs.values()].flatMap((j) => j.amplitude_ids.map((e) => e.amplitude_id));
    expect(jobIds).toContain(first);
    expect(jobIds).not.toContain(second);
    fakes.amplitude.state.stagingMs = 150;
  });

  it("with delete_from_org, follows each project's job (its app), not any job of the same day", async () => {
    const own = fakes.amplitude.addUser('org-user');
    const other = fakes.amplitude.addUser('org-user', '999001');
    const accepted = await amplitudeDriver.requestDeletion(ctxFor('org-user', { deleteFromOrg: true }));
    expect(accepted.kind).toBe('accepted');
    const trackingId = accepted.kind === 'accepted' ? accepted.trackingId : '';
    const tracking = parseTracking(trackingId);
    expect(tracking.map((t) => [t.app, t.amplitudeIds])).toEqual([
      [fakes.amplitude.state.app, [String(own)]],
      ['999001', [String(other)]],
    ]);
    // This project's job is done while the other project's job (same day) is still staging.
    const jobOf = (app: string) =>
      [...fakes.amplitude.state.jobs.values()].find(
        (j) => j.app === app && j.amplitude_ids.some((e) => e.user_id === 'org-user'),
      )!;
    jobOf(fakes.amplitude.state.app).createdAt = 0;
    const otherJob = jobOf('999001');
    otherJob.createdAt = Date.now() + 3_600_000;
    expect(await amplitudeDriver.checkStatus!(ctxFor('org-user', { deleteFromOrg: true }, trackingId))).toMatchObject({
      kind: 'pending',
      status: 'PENDING',
    });
    otherJob.createdAt = 0;
    expect(await amplitudeDriver.checkStatus!(ctxFor('org-user', { deleteFromOrg: true }, trackingId))).toMatchObject({
      kind: 'success',
    });
  });

  it('still reads tracking ids written before projects were tracked', () => {
    expect(parseTracking('2030-01-10:1,2')).toEqual([{ day: '2030-01-10', amplitudeIds: ['1', '2'] }]);
  });
});

describe('Mixpanel create answered 409', () => {
  it('is accepted and follows the task Mixpanel already has for that distinct id', async () => {
    fakes.mixpanel.state.pendingMs = 60_000;
    const ctx = () =>
      driverContext(
        'MIXPANEL',
        mixpanelConfigSchema.parse({ projectToken: 'mixpanelprojecttoken1', baseUrl: fakes.mixpanel.url }),
        { accessToken: 'mixpanel-gdpr-oauth-token' },
        { identifier: 'resent-user' },
      );
    const first = await mixpanelDriver.requestDeletion(ctx());
    // The answer to the first send was lost: the engine sends again.
    await new Promise((r) => setTimeout(r, 120));
    const again = await mixpanelDriver.requestDeletion(ctx());
    expect(first.kind).toBe('accepted');
    expect(again).toMatchObject({
      kind: 'accepted',
      status: 'PENDING',
      trackingId: first.kind === 'accepted' ? first.trackingId : '',
    });
    expect(fakes.mixpanel.calls.filter((c) => c.method === 'POST').at(-1)).toBeDefined();
    expect([...fakes.mixpanel.state.tasks.values()].filter((t) => t.distinctIds.includes('resent-user'))).toHaveLength(
      1,
    );
    fakes.mixpanel.state.pendingMs = 100;
  });
});

describe('Segment workspace regulations', () => {
  const ctxFor = (identifier: string, trackingId: string | null = null, config: Record<string, unknown> = {}) =>
    driverContext(
      'SEGMENT',
      segmentConfigSchema.parse({ baseUrl: fakes.segment.url, ...config }),
      { apiKey: 'segment-public-api-token' },
      { identifier, trackingId },
    );

  it('offers only the subject and regulation types a workspace regulation accepts', () => {
    expect(segmentConfigSchema.safeParse({ subjectType: 'ANONYMOUS_ID' }).success).toBe(false);
    expect(segmentConfigSchema.safeParse({ regulationType: 'DELETE_ARCHIVE_ONLY' }).success).toBe(false);
    expect(segmentConfigSchema.safeParse({ subjectType: 'OBJECT_ID', regulationType: 'DELETE_ONLY' }).success).toBe(
      true,
    );
  });

  it('cancels a regulation while it is INITIALIZED, and says why not once it runs', async () => {
    fakes.segment.state.initializedMs = 60_000;
    const accepted = await segmentDriver.requestDeletion(ctxFor('seg-cancel'));
    const regulateId = accepted.kind === 'accepted' ? accepted.trackingId : '';
    expect(segmentDriver.canCancel(segmentConfigSchema.parse({}))).toBe(true);
    expect(await segmentDriver.cancel!(ctxFor('seg-cancel', regulateId))).toMatchObject({ canceled: true });
    expect(fakes.segment.state.regulations.has(regulateId)).toBe(false);
    fakes.segment.state.initializedMs = 0;
    const running = await segmentDriver.requestDeletion(ctxFor('seg-running'));
    const refused = await segmentDriver.cancel!(
      ctxFor('seg-running', running.kind === 'accepted' ? running.trackingId : ''),
    );
    expect(refused).toMatchObject({ canceled: false, message: expect.stringContaining('only INITIALIZED') });
    fakes.segment.state.initializedMs = 100;
  });

  it('waits for X-RateLimit-Reset on a 429 instead of retrying within a second', async () => {
    fakes.segment.state.throttleNext = 1;
    fakes.segment.state.retryAfter = String(3 * 86_400); // monthly quota: resets in three days
    const now = new Date();
    const outcome = await segmentDriver.requestDeletion(
      driverContext(
        'SEGMENT',
        segmentConfigSchema.parse({ baseUrl: fakes.segment.url }),
        { apiKey: 'segment-public-api-token' },
        { identifier: 'seg-quota', now },
      ),
    );
    expect(outcome.kind).toBe('deferred');
    const until = outcome.kind === 'deferred' ? outcome.until.getTime() : 0;
    expect(until - now.getTime()).toBeGreaterThan(3 * 86_400_000 - 60_000);
    fakes.segment.state.retryAfter = '0';
  });
});

describe('Google Analytics 4 timeline', () => {
  it('says in the SUCCESS message and the README that reports clear in ~72 h and servers purge in ~2 months', async () => {
    const tokens = fakes.google.issueTokens();
    const ctx = driverContext(
      'GOOGLE_ANALYTICS',
      googleAnalyticsConfigSchema.parse({ propertyId: '123456789', baseUrl: fakes.google.url }),
      { accessToken: tokens.accessToken },
      { identifier: 'ga-user' },
    );
    const outcome = await googleAnalyticsDriver.requestDeletion(ctx);
    expect(outcome.kind).toBe('success');
    const message = outcome.kind === 'success' ? outcome.message : '';
    expect(message).toMatch(/reports within about 72 hours/);
    expect(message).toMatch(/servers .*about two months/);
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const row = readme.split('\n').find((line) => line.startsWith('| [Google Analytics 4]'))!;
    expect(row).toMatch(/72 hours/);
    expect(row).toMatch(/two months/);
  });
});
