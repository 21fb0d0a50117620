import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectAnalytics, seedAnalyticsOrg, startAnalyticsFakes, type AnalyticsFakes } from '../test/analytics-setup';
import { FAST_ENGINE_CONFIG, startTestWorker, waitForIntegrationRequest, waitForRequest } from '../test/engine';
import { googleOAuthEnv } from './google-analytics/fake';
import { createTestEnv, startTestServer, type TestEnv } from '../test/harness';
import { mixpanelRateLimiter } from './mixpanel/rate-limiter';

let env: TestEnv;
let fakes: AnalyticsFakes;
let server: Awaited<ReturnType<typeof startTestServer>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  fakes = await startAnalyticsFakes();
  env = await createTestEnv({ ...FAST_ENGINE_CONFIG, ...googleOAuthEnv(fakes.google) });
  server = await startTestServer(env.deps);
  worker = await startTestWorker(env, { concurrency: 8 });
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await env?.close();
  await fakes?.close();
});
beforeEach(() => {
  // The fake enforces Mixpanel's per-project spacing at 100 ms to keep the tests short; the
  // limiter leaves a margin so calls delayed on a loaded machine still arrive spaced out.
  mixpanelRateLimiter.intervalMs = 160;
  fakes.mixpanel.state.minIntervalMs = 100;
  fakes.mixpanel.state.pendingMs = 100;
  fakes.mixpanel.state.startedMs = 100;
  fakes.amplitude.state.stagingMs = 150;
});

async function createViaPublicApi(
  org: { pat: string; workspaceApiKey: string },
  identifier: string,
  regulation?: string,
) {
  const response = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': org.pat },
    body: JSON.stringify({ workspaceApiKey: org.workspaceApiKey, identifier, regulation }),
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string; status: string };
}

const byType = <T extends { integrationType: string }>(list: T[]) =>
  Object.fromEntries(list.map((i) => [i.integrationType, i])) as Record<string, T>;

async function cancelWhenIdle(
  caller: Awaited<ReturnType<typeof seedAnalyticsOrg>>['caller'],
  deletionRequestId: string,
  integrationRequestId: string,
) {
  for (let i = 0; i < 80; i++) {
    const result = await caller.deletionRequests
      .cancelIntegration({ deletionRequestId, integrationRequestId })
      .catch((e: Error) => e);
    if (!(result instanceof Error)) return result;
    // Busy with a step, or Mixpanel's 1 request per second per project was just spent by the
    // worker's status check: a person would try again a moment later, and so does this test.
    const rateLimited = /HTTP 429/.test(result.message);
    if (!/being processed/.test(result.message) && !rateLimited) return result;
    await new Promise((r) => setTimeout(r, rateLimited ? 250 : 15));
  }
  throw new Error('integration request stayed busy');
}

describe('analytics integrations, end to end through the public API and the engine', () => {
  it('drives Mixpanel, Amplitude, Segment, PostHog and GA4 to SUCCESS with each vendor contract honoured', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes);
    const amplitudeId = fakes.amplitude.addUser('user-42');
    const person = fakes.posthog.addPerson(['user-42', 'anon-7']);

    // A CCPA request: Mixpanel files it as CCPA (the integration's own setting is GDPR).
    const created = await createViaPublicApi(org, 'user-42', 'CCPA');
    expect(created.status).toBe('STAGING');
    const done = await waitForRequest(env, created.id);
    const irs = byType(done.integrationRequests);
    expect(done.status).toBe('SUCCESS');
    expect(Object.values(irs).map((i) => [i.integrationType, i.status, i.attempts])).toEqual(
      expect.arrayContaining([
        ['MIXPANEL', 'SUCCESS', 1],
        ['AMPLITUDE', 'SUCCESS', 1],
        ['SEGMENT', 'SUCCESS', 1],
        ['POSTHOG', 'SUCCESS', 1],
        ['GOOGLE_ANALYTICS', 'SUCCESS', 1],
      ]),
    );

    const task = fakes.mixpanel.state.tasks.get(irs.MIXPANEL!.trackingId!)!;
    expect(task).toMatchObject({
      distinctIds: ['user-42'],
      complianceType: 'CCPA',
      projectToken: 'mixpanelprojecttoken1',
    });
    // One project: Amplitude lists no `app` with the job (only requests reaching several projects do).
    expect(irs.AMPLITUDE!.trackingId).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}:${amplitudeId}$`));
    const ampCreate = fakes.amplitude.calls.find((c) => c.method === 'POST')!;
    expect(JSON.parse(ampCreate.body)).toMatchObject({
      user_ids: ['user-42'],
      requester: 'privacy@example.com',
      ignore_invalid_id: true,
      delete_from_org: false,
    });
    expect(fakes.segment.state.regulations.get(irs.SEGMENT!.trackingId!)).toMatchObject({
      regulationType: 'SUPPRESS_WITH_DELETE',
      subjectType: 'USER_ID',
      subjectIds: ['user-42'],
    });
    expect(fakes.posthog.state.deleted).toEqual([
      { uuid: person.uuid, distinctIds: ['user-42', 'anon-7'], deleteEvents: true, deleteRecordings: true },
    ]);
    expect(fakes.google.state.deletions).toEqual([
      expect.objectContaining({ propertyId: '123456789', user: { userId: 'user-42' } }),
    ]);

    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const text = JSON.stringify(trail);
    for (const secret of [
      'mixpanel-gdpr-oauth-token',
      fakes.amplitude.state.secretKey,
      'segment-public-api-token',
      'phx_personal_api_key_1234',
    ])
      expect(text).not.toContain(secret);
    const posthogStep = trail.find(
      (e) => e.integrationRequestId === irs.POSTHOG!.id && e.action === 'deletion.requested',
    )!;
    expect((posthogStep.details as { evidence: unknown }).evidence).toMatchObject({
      personFound: true,
      eventsDeletionQueued: true,
      remainingAfterDelete: 0,
    });
    // Async vendors: the accept and every status check are in the trail with the vendor's statuses.
    const mixpanelSteps = trail.filter((e) => e.integrationRequestId === irs.MIXPANEL!.id).map((e) => e.summary);
    expect(mixpanelSteps.join('\n')).toMatch(/task .* created[\s\S]*finished: SUCCESS/);
    const amplitudeSteps = trail
      .filter((e) => e.integrationRequestId === irs.AMPLITUDE!.id)
      .map((e) => e.summary)
      .join('\n');
    expect(amplitudeSteps).toMatch(/staging[\s\S]*done/);
  });

  it('tests each connection without deleting anything', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    const integrations = await connectAnalytics(caller, org.workspace.id, fakes);
    for (const integration of Object.values(integrations)) {
      const result = await caller.integrations.testConnection({ integrationId: integration!.id });
      expect([integration!.type, result.ok, result.message]).toEqual([integration!.type, true, expect.any(String)]);
    }
    expect(
      [...fakes.mixpanel.state.tasks.values()].filter((t) => t.distinctIds.includes('connection-test')),
    ).toHaveLength(0);
  });

  it('records "not found" as a successful deletion where the vendor knows no such user', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, { only: ['POSTHOG', 'AMPLITUDE'] });
    const created = await createViaPublicApi(org, 'never-seen');
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('SUCCESS');
    const irs = byType(done.integrationRequests);
    expect(irs.POSTHOG!.trackingId).toBeNull();
    const trail = await caller.deletionRequests.auditTrail({ deletionRequestId: created.id });
    const step = (id: string) => trail.find((e) => e.integrationRequestId === id && e.action === 'deletion.requested')!;
    expect(step(irs.POSTHOG!.id).summary).toContain('PostHog has no person with this distinct id');
    expect((step(irs.POSTHOG!.id).details as { evidence: unknown }).evidence).toEqual({ personFound: false });
    expect(step(irs.AMPLITUDE!.id).summary).toContain('Amplitude knows no user with this id');
  });

  it("fails at once with the vendor's reason when credentials are revoked or wrong", async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, {
      secrets: {
        MIXPANEL: { accessToken: 'revoked-gdpr-token' },
        AMPLITUDE: { apiKey: 'amp-api-key', secretKey: 'rotated-away' },
        SEGMENT: { apiKey: 'deleted-token' },
        POSTHOG: { apiKey: 'phx_revoked_key_0000' },
        GOOGLE_ANALYTICS: {
          accessToken: 'ya29.revoked',
          refreshToken: 'r',
          expiresAt: new Date(Date.now() + 3_000_000).toISOString(),
        },
      },
    });
    const created = await createViaPublicApi(org, 'user-revoked');
    const done = await waitForRequest(env, created.id);
    expect(done.status).toBe('FAILED');
    const irs = byType(done.integrationRequests);
    expect(Object.values(irs).every((i) => i.status === 'FAILED' && i.attempts === 1)).toBe(true);
    expect(irs.MIXPANEL!.lastError).toBe('HTTP 401: Invalid OAuth token');
    expect(irs.AMPLITUDE!.lastError).toBe('HTTP 401: Invalid API key or secret key');
    expect(irs.SEGMENT!.lastError).toContain('HTTP 401');
    expect(irs.POSTHOG!.lastError).toContain('Personal API key found in request Authorization header is invalid');
    expect(irs.GOOGLE_ANALYTICS!.lastError).toMatch(
      /^Google rejected the access token \(HTTP 401 UNAUTHENTICATED.*reconnect the account$/,
    );
  });

  it('queues Mixpanel calls behind its per-project limit and treats 429s as "later", not as failures', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, { only: ['MIXPANEL', 'SEGMENT'] });
    // Mixpanel's limit is stricter than this process assumes (no calls-per-second setting of
    // the integration's own, so the claim does not space them): some calls get 429 and wait.
    await env.deps.prisma.integration.updateMany({
      where: { workspaceId: org.workspace.id },
      data: { maxRequestsPerSecond: null },
    });
    fakes.mixpanel.state.minIntervalMs = 250;
    const limitedBefore = fakes.mixpanel.state.rateLimited;
    fakes.segment.state.throttleNext = 2;
    const requests = await Promise.all(['rl-1', 'rl-2', 'rl-3'].map((id) => createViaPublicApi(org, id)));
    const done = await Promise.all(requests.map((r) => waitForRequest(env, r.id)));
    for (const request of done) {
      expect(request.status).toBe('SUCCESS');
      // Waiting for the vendor's limit never used up an attempt.
      for (const ir of request.integrationRequests) expect(ir.attempts).toBe(1);
    }
    expect(fakes.mixpanel.state.rateLimited).toBeGreaterThan(limitedBefore);
    const trails = await Promise.all(
      requests.map((r) => caller.deletionRequests.auditTrail({ deletionRequestId: r.id })),
    );
    const summaries = trails
      .flat()
      .map((e) => e.summary)
      .join('\n');
    expect(summaries).toMatch(/Segment rate limit \(HTTP 429\); queued/);
    expect(summaries).toMatch(/Mixpanel rate limit|Queued behind other calls to this Mixpanel project/);
  });

  it('spaces calls to one Mixpanel project by the limiter when the process alone talks to it', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, { only: ['MIXPANEL'] });
    // The limiter spaces our calls as they leave; the fake times them as they arrive. A wide margin
    // over the fake's 100 ms keeps a loaded machine's jitter from bunching two arrivals.
    mixpanelRateLimiter.intervalMs = 400;
    try {
      const limitedBefore = fakes.mixpanel.state.rateLimited;
      const callsBefore = fakes.mixpanel.calls.length;
      const requests = await Promise.all(['sp-1', 'sp-2', 'sp-3', 'sp-4'].map((id) => createViaPublicApi(org, id)));
      const done = await Promise.all(requests.map((r) => waitForRequest(env, r.id)));
      expect(done.every((r) => r.status === 'SUCCESS')).toBe(true);
      expect(fakes.mixpanel.state.rateLimited).toBe(limitedBefore);
      const times = fakes.mixpanel.calls.slice(callsBefore).map((c) => c.at);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(95);
    } finally {
      mixpanelRateLimiter.intervalMs = 160;
    }
  });

  it('cancels a pending Mixpanel task, a staging Amplitude job and an INITIALIZED Segment regulation at the vendor', async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, { only: ['MIXPANEL', 'AMPLITUDE', 'SEGMENT'] });
    fakes.mixpanel.state.pendingMs = 60_000;
    fakes.amplitude.state.stagingMs = 60_000;
    fakes.segment.state.initializedMs = 60_000;
    const amplitudeId = fakes.amplitude.addUser('cancel-me');
    try {
      const created = await createViaPublicApi(org, 'cancel-me');
      const request = await waitForRequest(env, created.id, ['PENDING', 'PROCESSING']);
      const irs = byType(request.integrationRequests);
      const accepted = await Promise.all(
        Object.values(irs).map((ir) => waitForIntegrationRequest(env, ir.id, ['PENDING', 'PROCESSING'])),
      );
      expect(accepted.every((ir) => ir.trackingId)).toBe(true);

      const mixpanel = await cancelWhenIdle(caller, created.id, irs.MIXPANEL!.id);
      expect(mixpanel).toMatchObject({
        integrationRequestIds: [irs.MIXPANEL!.id],
        message: expect.stringContaining('canceled'),
      });
      expect(
        fakes.mixpanel.state.tasks.get(accepted.find((a) => a.integrationType === 'MIXPANEL')!.trackingId!)!.revoked,
      ).toBe(true);

      const amplitude = await cancelWhenIdle(caller, created.id, irs.AMPLITUDE!.id);
      expect(amplitude).toMatchObject({
        integrationRequestIds: [irs.AMPLITUDE!.id],
        message: expect.stringContaining(`${amplitudeId}@`),
      });
      expect(
        [...fakes.amplitude.state.jobs.values()].some((j) =>
          j.amplitude_ids.some((a) => a.amplitude_id === amplitudeId),
        ),
      ).toBe(false);

      const segment = await cancelWhenIdle(caller, created.id, irs.SEGMENT!.id);
      expect(segment).toMatchObject({
        integrationRequestIds: [irs.SEGMENT!.id],
        message: expect.stringContaining('deleted before it ran'),
      });
      expect(
        fakes.segment.state.regulations.has(accepted.find((a) => a.integrationType === 'SEGMENT')!.trackingId!),
      ).toBe(false);
    } finally {
      fakes.segment.state.initializedMs = 100;
    }
  });

  it("refuses to cancel a Mixpanel task that has STARTED, with Mixpanel's reason", async () => {
    const { org, caller } = await seedAnalyticsOrg(env);
    await connectAnalytics(caller, org.workspace.id, fakes, { only: ['MIXPANEL'] });
    fakes.mixpanel.state.pendingMs = 0;
    fakes.mixpanel.state.startedMs = 60_000;
    const created = await createViaPublicApi(org, 'too-late');
    const request = await waitForRequest(env, created.id, ['PROCESSING']);
    const result = await cancelWhenIdle(caller, created.id, request.integrationRequests[0]!.id);
    expect((result as Error).message).toMatch(
      /refused to cancel: Mixpanel cancels only PENDING or STAGING tasks: HTTP 405: Task is STARTED/,
    );
    expect(result).toMatchObject({ code: 'CONFLICT' });
    const after = await env.db.prisma.integrationRequest.findUniqueOrThrow({
      where: { id: request.integrationRequests[0]!.id },
    });
    expect(after.status).toBe('PROCESSING');
  });
});
