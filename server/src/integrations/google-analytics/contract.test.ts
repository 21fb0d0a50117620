import { v1alpha } from '@google-analytics/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleAnalyticsConfigSchema } from '@shared/integrations';
import { callsDuring, shapeOf } from '../../test/contract';
import { driverContext } from '../../test/driver-context';
import { startGoogleFake } from './fake';
import { googleAnalyticsDriver } from './driver';

// Google's official client (@google-analytics/admin, generated from the Admin API protos with
// their HTTP bindings), in its REST transport, against the same fake.
let fake: Awaited<ReturnType<typeof startGoogleFake>>;
let accessToken = '';
beforeAll(async () => {
  fake = await startGoogleFake();
  fake.state.properties.add('123456789');
  accessToken = fake.issueTokens().accessToken;
});
afterAll(() => fake?.close());

const sdk = () => {
  const url = new URL(fake.url);
  // Stands in for google-auth-library's client: adds the OAuth access token, as an OAuth2Client does.
  const authClient = {
    getRequestHeaders: async () => new Headers({ authorization: `Bearer ${accessToken}` }),
    fetch: (input: string | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${accessToken}`);
      return fetch(input, { ...init, headers });
    },
  };
  return new v1alpha.AnalyticsAdminServiceClient({
    apiEndpoint: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    fallback: true,
    authClient,
  } as unknown as ConstructorParameters<typeof v1alpha.AnalyticsAdminServiceClient>[0]);
};

describe('Google Analytics 4 contract (official @google-analytics/admin, REST transport)', () => {
  it("submits the user deletion as the client does, and the client parses the fake's answer", async () => {
    const ctx = driverContext(
      'GOOGLE_ANALYTICS',
      googleAnalyticsConfigSchema.parse({ propertyId: '123456789', identifierType: 'clientId', baseUrl: fake.url }),
      { accessToken },
      { identifier: '555.666' },
    );
    const [ours] = await callsDuring(fake, async () =>
      expect(await googleAnalyticsDriver.requestDeletion(ctx)).toMatchObject({ kind: 'success' }),
    );
    let answer: { deletionRequestTime?: { seconds?: unknown } | null } | undefined;
    const [theirs] = await callsDuring(fake, async () => {
      [answer] = await sdk().submitUserDeletion({ name: 'properties/123456789', clientId: '555.666' });
    });
    const a = shapeOf(ours!);
    const b = shapeOf(theirs!);
    // The client adds its own `$alt=json;enum-encoding=int` query parameter; everything else is the same.
    expect({ ...a, query: [] }).toEqual({ ...b, query: [] });
    expect(b.query.map(([k]) => k)).toEqual(['$alt']);
    expect(Number(answer?.deletionRequestTime?.seconds)).toBeGreaterThan(1_700_000_000);
  });
});
