import { z } from 'zod';
import { sqlConfigSchema, sqlRuleSchema } from './postgres';
import { baseUrlSchema } from './vendor';
import { defineConnector } from './connector';

/** Where BigQuery's REST API v2 and Google's OAuth 2.0 token endpoint are. */
export const BIGQUERY_API_HOST = 'https://bigquery.googleapis.com';
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** The scope a service account's access token asks for: view and manage data in BigQuery. */
export const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery';

/** What BigQuery keeps of deleted rows when a dataset says nothing: 7 days of time travel, then 7 days of fail-safe. */
export const DEFAULT_TIME_TRAVEL_HOURS = 168;
export const FAIL_SAFE_DAYS = 7;

/** A dataset: letters, digits and underscores, at most 1,024 of them. */
const datasetName = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(1024, 'Dataset names are at most 1,024 characters')
  .regex(/^[A-Za-z0-9_]+$/, 'Letters, digits and underscores');

export const bigqueryRuleSchema = sqlRuleSchema(datasetName);

/** Ten GiB: what a rule's statement may read at most unless the integration says otherwise. */
export const DEFAULT_MAX_BYTES_SCANNED = 10 * 1024 ** 3;

export const bigqueryConfigSchema = sqlConfigSchema(bigqueryRuleSchema, datasetName).extend({
  /** The Google Cloud project the query jobs run (and are billed) in; rules name datasets of it. */
  projectId: z
    .string()
    .trim()
    .min(1, 'Required')
    .max(128)
    .regex(/^([a-z0-9.-]+:)?[a-z][a-z0-9-]{4,61}[a-z0-9]$/, 'A project ID such as my-project-123'),
  /** Where the datasets are (US, EU, europe-west2…): every job runs there, and discovery reads that region. */
  location: z
    .string()
    .trim()
    .min(1, 'Required')
    .max(64)
    .regex(/^[A-Za-z0-9-]+$/, 'A location such as US, EU or europe-west2'),
  /** Most bytes one rule's statement may read (by BigQuery's dry run); a statement over it is refused, never run. */
  maxBytesScanned: z.number().int().min(1).max(1e15).default(DEFAULT_MAX_BYTES_SCANNED),
  /** Replaces https://bigquery.googleapis.com (a private endpoint, a test stand-in). */
  baseUrl: baseUrlSchema,
  /** Replaces Google's token endpoint: for test stand-ins only, and never offered by the dashboard. */
  tokenUri: baseUrlSchema,
});
export type BigqueryConfig = z.infer<typeof bigqueryConfigSchema>;

/** Where a BigQuery account's calls go, without rules: what discovery needs. */
export const bigqueryPlaceSchema = bigqueryConfigSchema.pick({
  projectId: true,
  location: true,
  baseUrl: true,
  tokenUri: true,
  maxBytesScanned: true,
  statementTimeoutMs: true,
});
export type BigqueryPlace = z.infer<typeof bigqueryPlaceSchema>;

/**
 * A service account key as Google's console downloads it (JSON). Only these fields are used;
 * `token_uri` in the file is ignored, so the signed assertion goes to Google's token endpoint only.
 */
export const serviceAccountKeySchema = z.object({
  type: z.literal('service_account', { error: 'A service account key (its "type" is "service_account")' }),
  client_email: z.string().email('The key has no client_email'),
  private_key: z.string().includes('PRIVATE KEY', { message: 'The key has no private_key' }),
  private_key_id: z.string().optional(),
  project_id: z.string().optional(),
});

/** The sentence a step's outcome ends with: what BigQuery still keeps of deleted rows, and for how long. */
export function timeTravelNotice(hours: number): string {
  const days = hours / 24;
  const window = Number.isInteger(days) ? `${hours} hours (${days} days)` : `${hours} hours`;
  return `BigQuery keeps changed and deleted rows recoverable through time travel for ${window}, then for ${FAIL_SAFE_DAYS} days of fail-safe (recoverable by Google support only); they are gone for good after ${hours / 24 + FAIL_SAFE_DAYS} days.`;
}

export const bigqueryConnector = defineConnector({
  type: 'BIGQUERY',
  label: 'Google BigQuery',
  // A service account's JSON key; the project, the location and the rules are configuration.
  accountTypes: ['GOOGLE_SERVICE_ACCOUNT'],
  accountRequired: true,
  configSchema: bigqueryConfigSchema,
  catalogue: {
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
});
