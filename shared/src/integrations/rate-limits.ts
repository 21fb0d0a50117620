import type { IntegrationType } from '../statuses';

/**
 * Each vendor's documented request rate, as requests per second: a new integration of the type
 * gets it as its `maxRequestsPerSecond` unless one is given (an explicit null: no limit of its
 * own). Where a vendor's limit depends on the plan, the lowest published plan's figure is used,
 * so a call is never refused for the rate; an account on a larger plan raises it. Where a vendor
 * publishes no single figure for the calls its connector makes, there is no default.
 */
const VENDOR_REQUESTS_PER_SECOND: Partial<Record<IntegrationType, number>> = {
  // https://github.com/mixpanel/docs (reference/gdpr-api.mdx, see mixpanel/SOURCES.md):
  // "Mixpanel limits this API to 1 request per second".
  MIXPANEL: 1,
  // https://amplitude.com/docs/apis/analytics/user-privacy (see amplitude/SOURCES.md): one HTTP
  // request per second on /api/2/deletions/users.
  AMPLITUDE: 1,
  // https://developers.klaviyo.com/en/reference/request_profile_deletion (see klaviyo/SOURCES.md):
  // "burst 3/s, steady 60/m"; the steady rate.
  KLAVIYO: 1,
  // https://docs.stripe.com/rate-limits: "API endpoints have a default limit of 25 requests per
  // second" (within the global "Live mode: 100 operations" per second).
  STRIPE: 25,
  // https://developers.hubspot.com/docs/guides/apps/api-usage/usage-details: private apps on
  // Free and Starter accounts, 100 requests per 10 seconds (190 on Professional and Enterprise,
  // https://developers.hubspot.com/changelog/increasing-our-api-limits).
  HUBSPOT: 10,
  // https://developers.intercom.com/docs/references/rest-api/errors/rate-limiting: "10,000 API
  // calls per minute per app", evenly distributed into 10 second windows.
  INTERCOM: 166,
  // https://developer.zendesk.com/api-reference/introduction/rate-limits: Support plan limits,
  // the lowest (Team) 200 requests per minute.
  ZENDESK: 200 / 60,
  // https://www.braze.com/docs/api/api_limits: /users/delete (shared with /users/alias/new,
  // /users/identify, /users/merge) "20,000 requests per minute".
  BRAZE: 20_000 / 60,
  // https://docs.customer.io/integrations/api/app/: most App API requests "10 requests per
  // second" (the Track API allows 100); the stricter of the two APIs the connector calls.
  CUSTOMERIO: 10,
  // No single published figure for the calls these connectors make: Segment's Public API,
  // PostHog, SendGrid (per endpoint, announced in X-RateLimit-* headers), Auth0 (by plan and
  // tenant, announced in x-ratelimit-* headers), Mailchimp (10 simultaneous connections, a
  // concurrency: "Calls at once"). Their 429s still push the integration's next slot.
};

/** The documented rate of `type`'s vendor, null when it publishes none. */
export function vendorRequestsPerSecond(type: IntegrationType): number | null {
  return VENDOR_REQUESTS_PER_SECOND[type] ?? null;
}
