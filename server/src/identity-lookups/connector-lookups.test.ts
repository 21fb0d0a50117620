import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../integrations/runtime/http-client';
import type { Exchange } from '../integrations/types';
import { startAuth0Fake } from '../integrations/auth0/fake';
import { startHubspotFake } from '../integrations/hubspot/fake';
import { LookupError, runIdentityLookup, type IdentityLookupConfig } from './run-lookup';

// How the Auth0 and HubSpot lookups fail: the vendor's limits are transient with the wait it asks for, the rest permanent, and no message quotes an identifier or a secret.
let auth0: Awaited<ReturnType<typeof startAuth0Fake>>;
let hubspot: Awaited<ReturnType<typeof startHubspotFake>>;
const EMAIL = 'Failing.Person@example.com';
const known = [{ type: 'email', value: EMAIL }];

beforeAll(async () => {
  [auth0, hubspot] = await Promise.all([startAuth0Fake(), startHubspotFake()]);
  auth0.state.clients.set('m2m-failing-client-id', 'client-secret-0123456789');
  hubspot.state.tokens.add('pat-eu1-failing');
});
afterAll(() => Promise.all([auth0?.close(), hubspot?.close()]));

async function failure(config: IdentityLookupConfig, secrets: Record<string, unknown>): Promise<LookupError> {
  const trail: Exchange[] = [];
  const env = { secrets, http: createHttpClient({ trail, secrets: [] }), trail };
  const error = await runIdentityLookup(config, known, env).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LookupError);
  const message = (error as LookupError).message;
  for (const hidden of [EMAIL, EMAIL.toLowerCase(), ...Object.values(secrets).map(String)])
    expect(message).not.toContain(hidden);
  return error as LookupError;
}

const auth0Config = (): IdentityLookupConfig => ({
  kind: 'auth0',
  domain: auth0.state.domain,
  baseUrl: auth0.url,
  identifierType: 'auth0_user_id',
  maxIdentifiers: 1,
});
const hubspotConfig = (): IdentityLookupConfig => ({
  kind: 'hubspot',
  baseUrl: hubspot.url,
  identifierType: 'hubspot_contact_id',
  maxIdentifiers: 5,
});

describe('connector lookups failing', () => {
  it('Auth0: a 429 is transient and waits until x-ratelimit-reset; refused credentials and too many users are permanent', async () => {
    const secrets = { apiKey: 'm2m-failing-client-id', secretKey: 'client-secret-0123456789' };
    auth0.state.throttleNext = 1;
    auth0.state.resetInSeconds = 4;
    const limited = await failure(auth0Config(), secrets);
    expect(limited).toMatchObject({ transient: true, message: 'Auth0 lookup: answered HTTP 429' });
    expect(limited.retryAfterMs).toBeGreaterThan(2_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(5_000);

    const refused = await failure(auth0Config(), {
      apiKey: 'm2m-failing-client-id',
      secretKey: 'not-the-secret-value',
    });
    expect(refused.transient).toBe(false);
    expect(refused.message).toMatch(/^Auth0 lookup: Auth0 refused the client credentials: HTTP 401/);

    auth0.addUser(EMAIL);
    auth0.addUser(EMAIL, 'google-oauth2');
    const many = await failure(auth0Config(), secrets);
    expect(many).toMatchObject({ transient: false, message: expect.stringMatching(/more than 1 users match/) });
  });

  it('HubSpot: a 429 is transient and waits the window HubSpot names; a refused token is permanent', async () => {
    hubspot.state.throttleNext = 1;
    const limited = await failure(hubspotConfig(), { apiKey: 'pat-eu1-failing' });
    expect(limited).toMatchObject({
      transient: true,
      retryAfterMs: 10_000,
      message: 'HubSpot lookup: answered HTTP 429',
    });

    const refused = await failure(hubspotConfig(), { apiKey: 'pat-eu1-unknown' });
    expect(refused).toMatchObject({ transient: false, message: 'HubSpot lookup: answered HTTP 401' });
  });
});
