import type { TestEnv } from './harness';
import { callerFor, seedOrganization } from './harness';
import { startAmplitudeFake } from '../integrations/amplitude/fake';
import { startGoogleFake } from '../integrations/google-analytics/fake';
import { startMixpanelFake } from '../integrations/mixpanel/fake';
import { startPosthogFake } from '../integrations/posthog/fake';
import { startSegmentFake } from '../integrations/segment/fake';

/** The five analytics fakes with short timings, seeded with credentials the tests use. */
export async function startAnalyticsFakes() {
  const [mixpanel, amplitude, segment, posthog, google] = await Promise.all([
    startMixpanelFake({ pendingMs: 100, startedMs: 100, minIntervalMs: 100, retryAfter: '0.1' }),
    startAmplitudeFake({ stagingMs: 150, submittedMs: 100 }),
    startSegmentFake({ initializedMs: 100, runningMs: 100 }),
    startPosthogFake(),
    startGoogleFake(),
  ]);
  mixpanel.state.tokens.add('mixpanel-gdpr-oauth-token');
  mixpanel.state.projects.add('mixpanelprojecttoken1');
  segment.state.tokens.add('segment-public-api-token');
  posthog.state.apiKeys.add('phx_personal_api_key_1234');
  google.state.properties.add('123456789');
  return {
    mixpanel,
    amplitude,
    segment,
    posthog,
    google,
    async close() {
      await Promise.all([mixpanel.close(), amplitude.close(), segment.close(), posthog.close(), google.close()]);
    },
  };
}

export type AnalyticsFakes = Awaited<ReturnType<typeof startAnalyticsFakes>>;
type Caller = ReturnType<typeof callerFor>['caller'];
type Vendor = 'MIXPANEL' | 'AMPLITUDE' | 'SEGMENT' | 'POSTHOG' | 'GOOGLE_ANALYTICS';

/** Connects the chosen vendors (default all five) to a workspace, pointed at the fakes. */
export async function connectAnalytics(
  caller: Caller,
  workspaceId: string,
  fakes: AnalyticsFakes,
  options: {
    only?: Vendor[];
    secrets?: Partial<Record<Vendor, Record<string, unknown>>>;
    config?: Partial<Record<Vendor, Record<string, unknown>>>;
  } = {},
) {
  const wanted = (v: Vendor) => !options.only || options.only.includes(v);
  const connect = async (
    type: Vendor,
    name: string,
    accountType: 'API_KEY' | 'API_KEY_SECRET' | 'OAUTH',
    secrets: Record<string, unknown>,
    config: Record<string, unknown>,
  ) => {
    const account = await caller.accounts.create({
      name: `${name} account`,
      integrationType: type,
      type: accountType,
      secrets: options.secrets?.[type] ?? secrets,
    });
    return caller.integrations.create({
      workspaceId,
      name,
      type,
      accountId: account.id,
      config: { ...config, ...(options.config?.[type] ?? {}) },
    });
  };
  const created: Partial<Record<Vendor, Awaited<ReturnType<Caller['integrations']['create']>>>> = {};
  if (wanted('MIXPANEL')) {
    created.MIXPANEL = await connect(
      'MIXPANEL',
      'Mixpanel',
      'OAUTH',
      { accessToken: 'mixpanel-gdpr-oauth-token' },
      { projectToken: 'mixpanelprojecttoken1', region: 'EU', baseUrl: fakes.mixpanel.url },
    );
  }
  if (wanted('AMPLITUDE')) {
    created.AMPLITUDE = await connect(
      'AMPLITUDE',
      'Amplitude',
      'API_KEY_SECRET',
      { apiKey: fakes.amplitude.state.apiKey, secretKey: fakes.amplitude.state.secretKey },
      { region: 'EU', requester: 'privacy@example.com', baseUrl: fakes.amplitude.url },
    );
  }
  if (wanted('SEGMENT')) {
    created.SEGMENT = await connect(
      'SEGMENT',
      'Segment',
      'API_KEY',
      { apiKey: 'segment-public-api-token' },
      { baseUrl: fakes.segment.url },
    );
  }
  if (wanted('POSTHOG')) {
    created.POSTHOG = await connect(
      'POSTHOG',
      'PostHog',
      'API_KEY',
      { apiKey: 'phx_personal_api_key_1234' },
      { projectId: fakes.posthog.state.projectId, baseUrl: fakes.posthog.url },
    );
  }
  if (wanted('GOOGLE_ANALYTICS')) {
    const tokens = fakes.google.issueTokens();
    const secrets = {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: new Date(Date.now() + 3_000_000).toISOString(),
      scope: fakes.google.state.grantedScope,
    };
    created.GOOGLE_ANALYTICS = await connect('GOOGLE_ANALYTICS', 'GA4', 'OAUTH', secrets, {
      propertyId: '123456789',
      identifierType: 'userId',
      baseUrl: fakes.google.url,
    });
  }
  return created;
}

/** A fresh organization per test, driven through tRPC with its owner's PAT. */
export async function seedAnalyticsOrg(env: TestEnv) {
  const org = await seedOrganization(env.deps);
  return { org, caller: callerFor(env.deps, { pat: org.pat }).caller };
}
