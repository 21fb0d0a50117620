import { z } from 'zod';
import { defineConnector } from './connector';

const IDENTIFIER = '{{identifier}}';
const window = z
  .object({ startHourUtc: z.number().int().min(0).max(23), endHourUtc: z.number().int().min(0).max(24) })
  .refine((w) => w.startHourUtc !== w.endHourUtc, 'Start and end must differ')
  .optional();

/** S3 bucket names as AWS allows them (DNS-style: lower case, digits, dots, hyphens). */
export const bucketNameSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'Bucket names are 3–63 lower-case letters, digits, dots and hyphens');

export const s3RuleSchema = z.discriminatedUnion('kind', [
  /**
   * Every object whose key starts with the prefix. Something must follow {{identifier}} (usually
   * '/'): otherwise `exports/jane` would also erase `exports/janet/...`.
   */
  z.object({
    kind: z.literal('prefix'),
    prefix: z
      .string()
      .trim()
      .min(1)
      .max(1024)
      .refine((v) => v.includes(IDENTIFIER), `The prefix must contain ${IDENTIFIER}`)
      // Listing by prefix matches anything that starts with it: `avatars/john.` also lists
      // avatars/john.smith.png. Only a '/' after the identifier ends it (an identifier holding
      // '/' is refused when the rule runs).
      .refine(
        (v) =>
          v
            .split(IDENTIFIER)
            .slice(1)
            .every((rest) => rest.startsWith('/')),
        `Put '/' right after ${IDENTIFIER}: with any other character, or none, the prefix also matches longer identifiers (john. would match john.smith)`,
      ),
  }),
  /** One object by its exact key. */
  z.object({
    kind: z.literal('key'),
    key: z
      .string()
      .trim()
      .min(1)
      .max(1024)
      .refine((v) => v.includes(IDENTIFIER), `The key must contain ${IDENTIFIER}`),
  }),
]);
export type S3Rule = z.infer<typeof s3RuleSchema>;

export const s3ConfigSchema = z.object({
  bucket: bucketNameSchema,
  rules: z.array(s3RuleSchema).min(1, 'Add at least one rule').max(50),
  /** More objects (versions included) than this for one request fails the request instead of erasing them. */
  maxObjects: z.number().int().min(1).max(1_000_000).default(1_000),
  maintenanceWindow: window,
});
export type S3Config = z.infer<typeof s3ConfigSchema>;

export const dynamoRuleSchema = z.discriminatedUnion('kind', [
  /** Every item whose partition key is the identifier (all sort keys). */
  z.object({ kind: z.literal('partition'), table: z.string().trim().min(3).max(255) }),
  /** Items found through a secondary index whose partition key is the identifier; deleted by the table's own key. */
  z.object({
    kind: z.literal('index'),
    table: z.string().trim().min(3).max(255),
    index: z.string().trim().min(3).max(255),
  }),
]);
export type DynamoRule = z.infer<typeof dynamoRuleSchema>;

export const dynamoConfigSchema = z.object({
  rules: z.array(dynamoRuleSchema).min(1, 'Add at least one rule').max(50),
  /** More items than this for one request fails the request instead of erasing them. */
  maxItems: z.number().int().min(1).max(1_000_000).default(10_000),
  maintenanceWindow: window,
});
export type DynamoConfig = z.infer<typeof dynamoConfigSchema>;

export const OBJECT_STORE_IDENTIFIER = IDENTIFIER;

export const s3Connector = defineConnector({
  type: 'S3',
  label: 'Amazon S3',
  accountTypes: ['AWS'],
  accountRequired: true,
  configSchema: s3ConfigSchema,
  catalogue: {
    category: 'Database',
    deletes: 'objects under key prefixes (exports/{{identifier}}/) and exact keys; every version in versioned buckets',
    credentials: 'access key id + secret access key, region, optional endpoint for S3-compatible stores',
    capabilities: { status: false, cancel: false, verify: true },
    notes: 'DeleteObjects 1,000 at a time; above maxObjects it FAILS; listed again as proof',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html',
  },
});

export const dynamodbConnector = defineConnector({
  type: 'DYNAMODB',
  label: 'Amazon DynamoDB',
  accountTypes: ['AWS'],
  accountRequired: true,
  configSchema: dynamoConfigSchema,
  catalogue: {
    category: 'Database',
    deletes: 'items whose partition key is the identifier, or found through a secondary index on it',
    credentials: 'access key id + secret access key, region, optional endpoint',
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'Query pages (never Scan), BatchWriteItem 25 at a time with unprocessed items sent again; above maxItems it FAILS; queried again as proof',
    completion: 'seconds to minutes',
    docsUrl: 'https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html',
  },
});
