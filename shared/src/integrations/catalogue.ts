import type { IntegrationType } from '../statuses';

export const INTEGRATION_CATEGORIES = [
  'Custom',
  'Database',
  'Analytics',
  'CRM',
  'Customer support',
  'Marketing',
  'Payments',
  'Identity',
] as const;
export type IntegrationCategory = (typeof INTEGRATION_CATEGORIES)[number];

/**
 * What the catalogue (README table, dashboard picker) says about a connector. `capabilities`
 * are checked against the drivers by a test: `status` = the deletion is followed by polling,
 * `cancel` = a sent deletion can be withdrawn at the vendor, `verify` = a lookup after the
 * deletion proves the subject is gone and is recorded as evidence.
 */
export interface CatalogueEntry {
  category: IntegrationCategory;
  /** What one request deletes there. */
  deletes: string;
  /** The credentials an account of this type holds. */
  credentials: string;
  capabilities: { status: boolean; cancel: boolean; verify: boolean };
  /** When cancel is possible, and other notes on the flow. */
  notes: string;
  completion: string;
  docsUrl: string;
}

export const integrationCatalogue: Record<IntegrationType, CatalogueEntry> = {
  WEBHOOK: {
    category: 'Custom',
    deletes: 'whatever your endpoint does',
    credentials: 'optional key-value secrets, usable as {{key}} in the calls',
    capabilities: { status: true, cancel: true, verify: false },
    notes: 'sync or async (a status call is polled); cancel if a cancel call is configured',
    completion: 'as your system reports',
    docsUrl: '',
  },
  POSTGRES: {
    category: 'Database',
    deletes: 'rows matched by your rules (delete, null, hash, mask, soft delete)',
    credentials: 'host, database, user, password',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'sync, or in a maintenance window (cancel before it runs); every rule is verified after commit',
    completion: 'seconds',
    docsUrl: 'https://www.postgresql.org/docs/current/sql-delete.html',
  },
  MIXPANEL: {
    category: 'Analytics',
    deletes: 'all events and the user profile of the distinct id in one project',
    credentials: 'GDPR OAuth token (or API key); the project token is configuration',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      "a deletion task filed under the request's regulation (GDPR or CCPA; a custom policy's under the integration's compliance type), polled; a 409 (Mixpanel already deleting) follows the task it names, or asks again an hour later, never FAILED; creates one per second per project; cancel while PENDING/STAGING",
    completion: 'days to a few weeks',
    docsUrl: 'https://developer.mixpanel.com/reference/create-deletion',
  },
  AMPLITUDE: {
    category: 'Analytics',
    deletes: 'all events and user properties of the user id or amplitude id, in the project or the organization',
    credentials: 'project API key + secret key (HTTP Basic)',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      "scheduled into a job 10–13 days out, polled per day and project; only this subject's ids are tracked (by amplitude id, the word `subject`: never the identifier itself); cancel while staging",
    completion: 'about 2 weeks',
    docsUrl: 'https://amplitude.com/docs/apis/analytics/user-privacy',
  },
  SEGMENT: {
    category: 'Analytics',
    deletes: "the user's data in Segment and supported destinations, then suppression (USER_ID or OBJECT_ID)",
    credentials: 'workspace Public API token (Bearer)',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      'a workspace regulation, polled; cancel while INITIALIZED; a 429 waits for msBeforeNext and the X-RateLimit-Reset date, using no attempt',
    completion: 'days, up to 30 days',
    docsUrl: 'https://docs.segmentapis.com/tag/Deletion-and-Suppression',
  },
  POSTHOG: {
    category: 'Analytics',
    deletes: 'the person by distinct id, its session recordings and (unless kept) its events',
    credentials: 'personal API key with person:read/person:write (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'look up, delete, look up again as proof',
    completion: 'seconds (events within a week)',
    docsUrl: 'https://posthog.com/docs/api/persons',
  },
  GOOGLE_ANALYTICS: {
    category: 'Analytics',
    deletes: "the user's data in one GA4 property up to the request time (userId, clientId or appInstanceId)",
    credentials: 'Google OAuth grant with the analytics.edit scope',
    capabilities: { status: false, cancel: false, verify: false },
    notes: 'accepted = done (Google offers no status)',
    completion: "gone from reports within about 72 hours; purged from Google's servers about two months later",
    docsUrl:
      'https://developers.google.com/analytics/devguides/config/admin/v1/rest/v1alpha/properties/submitUserDeletion',
  },
  STRIPE: {
    category: 'Payments',
    deletes: 'the customer (by id, or every customer with the email); its subscriptions are canceled',
    credentials: 'secret or restricted key with customers write access (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'delete, then retrieve each customer: `deleted: true` is the proof',
    completion: 'seconds',
    docsUrl: 'https://docs.stripe.com/api/customers/delete',
  },
  HUBSPOT: {
    category: 'CRM',
    deletes: 'the contact and its content (GDPR delete), by email or record id; the email is blocklisted',
    credentials: 'private app access token with crm.objects.contacts.read/write (Bearer)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'GDPR delete, then a lookup answering 404 is the proof',
    completion: 'seconds',
    docsUrl: 'https://developers.hubspot.com/docs/api/crm/contacts',
  },
  ZENDESK: {
    category: 'Customer support',
    deletes: 'the user (by email or id): deleted, then permanently deleted',
    credentials: "an admin's API token; the admin's email is configuration (Basic email/token)",
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'also finds users soft-deleted earlier (deleted users, by email); a 404 among deleted users after the permanent delete is the proof',
    completion: 'seconds',
    docsUrl: 'https://developer.zendesk.com/api-reference/ticketing/users/users/#permanently-delete-user',
  },
  INTERCOM: {
    category: 'Customer support',
    deletes: 'the contacts with the email or external_id (or the contact id)',
    credentials: 'access token of an Intercom app (Bearer)',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'search in the body, delete, a 404 on fetch is the proof; a search finding no one is repeated 5 minutes later (new contacts can take minutes to become searchable)',
    completion: 'seconds (minutes when the first search finds no one)',
    docsUrl: 'https://developers.intercom.com/docs/references/rest-api/api.intercom.io/contacts/deletecontact',
  },
  MAILCHIMP: {
    category: 'Marketing',
    deletes: 'the member of one audience, permanently (it cannot be re-imported)',
    credentials: 'API key (its suffix names the data center; HTTP Basic)',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'permanent delete, then a lookup answering 404 is the proof',
    completion: 'seconds',
    docsUrl: 'https://mailchimp.com/developer/marketing/api/list-members/delete-list-member-permanently/',
  },
  SENDGRID: {
    category: 'Marketing',
    deletes: 'the Marketing Campaigns contact with the email',
    credentials: 'API key with Marketing access (Bearer)',
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'a delete job, polled; a search finding no contact is the proof',
    completion: 'minutes',
    docsUrl: 'https://www.twilio.com/docs/sendgrid/api-reference/contacts/delete-contacts',
  },
  AUTH0: {
    category: 'Identity',
    deletes: 'every user with the email (one per connection), or the user id',
    credentials: 'machine-to-machine client id + secret with read:users and delete:users',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'delete, then a 404 on fetch is the proof; Management API tokens are reused; a 429 (token endpoint included) waits for x-ratelimit-reset',
    completion: 'seconds',
    docsUrl: 'https://auth0.com/docs/api/management/v2/users/delete-users-by-id',
  },
  BRAZE: {
    category: 'Marketing',
    deletes: 'the user profiles of the external id, Braze id or email',
    credentials: "REST API key with users.delete and users.export.ids; the instance's REST endpoint is configuration",
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'users/delete in batches of 50, then the export is polled until no profile is left',
    completion: 'minutes',
    docsUrl: 'https://www.braze.com/docs/api/endpoints/user_data/post_user_delete',
  },
  KLAVIYO: {
    category: 'Marketing',
    deletes: 'the profile (by email or id) and all its data',
    credentials: 'private API key with profiles:read and data-privacy:write',
    capabilities: { status: true, cancel: false, verify: true },
    notes: 'a data-privacy deletion job; the lookup is polled until no profile is left',
    completion: 'minutes to hours',
    docsUrl: 'https://developers.klaviyo.com/en/reference/request_profile_deletion',
  },
  CUSTOMERIO: {
    category: 'Marketing',
    deletes:
      'the person (by email or id) and its data; by default its identifiers are suppressed so they cannot be added again',
    credentials: 'Track API key + App API key; the Site ID is configuration',
    capabilities: { status: true, cancel: false, verify: true },
    notes:
      'Track API suppress by cio_id (delete only, as an option, can be undone by a later update), then the App API is polled until it answers 404',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.customer.io/integrations/api/track/tag/track-customers/suppress/',
  },
  MYSQL: {
    category: 'Database',
    deletes:
      'rows matched by the same rules as PostgreSQL; identifiers match exactly (case, accents, trailing spaces) despite case-insensitive collations',
    credentials: 'host, port (3306), database, user, password',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'one transaction, child tables first (from the foreign keys); a failing rule rolls all back; rows still matching are counted after commit',
    completion: 'seconds',
    docsUrl: 'https://mariadb.com/kb/en/delete/',
  },
  REDIS: {
    category: 'Database',
    deletes: 'keys matching templates (user:{{identifier}}:*), hash fields, set and sorted-set members',
    credentials: 'host, port, username, password, database number, TLS',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'SCAN (identifier glob-escaped) + UNLINK in batches, never KEYS; above maxKeys it FAILS; scanned again as proof',
    completion: 'seconds',
    docsUrl: 'https://redis.io/docs/latest/commands/unlink/',
  },
  S3: {
    category: 'Database',
    deletes: 'objects under key prefixes (exports/{{identifier}}/) and exact keys; every version in versioned buckets',
    credentials: 'access key id + secret access key, region, optional endpoint for S3-compatible stores',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'DeleteObjects 1,000 at a time; above maxObjects it FAILS; listed again as proof',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html',
  },
  DYNAMODB: {
    category: 'Database',
    deletes: 'items whose partition key is the identifier, or found through a secondary index on it',
    credentials: 'access key id + secret access key, region, optional endpoint',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'Query pages (never Scan), BatchWriteItem 25 at a time with unprocessed items sent again; above maxItems it FAILS; queried again as proof',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html',
  },
  MANUAL: {
    category: 'Custom',
    deletes: 'whatever its owners delete by hand (a legacy CRM, a spreadsheet, a vendor reached by email)',
    credentials: 'none: owners (members or outside addresses) get a task link by email',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      'a task per request, PENDING until an owner answers Done (optional evidence file), Not found or Cannot; reminders, escalation to admins; confirmed by a person, not verified',
    completion: 'the days to complete you set',
    docsUrl: '',
  },
  BIGQUERY: {
    category: 'Database',
    deletes:
      'rows matched by the same rules as PostgreSQL (delete, null, keyed hash, mask, soft delete) in the datasets of one project',
    credentials:
      "a service account's JSON key (BigQuery Data Editor and Job User); project and location are configuration",
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      "one parameterised query job per rule, each refused before it runs when BigQuery's dry run says it would read more than the integration's byte ceiling; rows still matching are counted after the jobs; the outcome states the dataset's time travel and fail-safe periods, during which deleted rows stay recoverable",
    completion: 'seconds to minutes',
    docsUrl: 'https://cloud.google.com/bigquery/docs/reference/standard-sql/dml-syntax',
  },
};

const yesNo = (value: boolean) => (value ? 'yes' : 'no');
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The README's integrations table, generated from the catalogue and the integration types'
 * labels and account types (`npm run docs:integrations` writes it; a test keeps it current).
 */
export function integrationsMarkdownTable(
  info: Partial<Record<IntegrationType, { label: string; accountTypes: readonly string[] }>>,
): string {
  const rows = (Object.keys(integrationCatalogue) as IntegrationType[]).map((type) => {
    const entry = integrationCatalogue[type];
    const label = info[type]?.label ?? type;
    const name = entry.docsUrl ? `[${label}](${entry.docsUrl})` : label;
    const accountTypes = (info[type]?.accountTypes ?? []).map((t) => `\`${t}\``).join(' or ');
    const { status, cancel, verify } = entry.capabilities;
    return `| ${cell(name)} | ${entry.category} | ${cell(entry.deletes)} | ${yesNo(status)} | ${yesNo(cancel)} | ${yesNo(verify)} | ${cell(entry.notes)} | ${cell(entry.completion)} | ${cell(entry.credentials)}${accountTypes ? ` (${accountTypes})` : ''} |`;
  });
  return [
    '| integration | category | what is deleted | status polled | cancel | verified after | how | typical completion | credentials (account type) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

export const README_TABLE_START =
  '<!-- integrations-table:start (generated by `npm run docs:integrations` from shared/src/integrations/catalogue.ts) -->';
export const README_TABLE_END = '<!-- integrations-table:end -->';
