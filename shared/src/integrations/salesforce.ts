import { z } from 'zod';
import { defineConnector } from './connector';
import { baseUrlSchema } from './vendor';

/** The REST API version our requests pin. */
export const SALESFORCE_API_VERSION = '62.0';

/** The objects searched by email and deleted from. */
export const SALESFORCE_OBJECTS = ['Contact', 'Lead'] as const;

export const salesforceConfigSchema = z.object({
  /**
   * The org's My Domain, such as acme.my.salesforce.com: the OAuth client credentials flow takes
   * its token there, and the REST API is served there.
   */
  myDomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9][a-z0-9-]*(\.[a-z0-9-]+)*\.my\.salesforce\.com$/, 'The My Domain, such as acme.my.salesforce.com'),
  /** Which objects to search by email and delete from. */
  objects: z.array(z.enum(SALESFORCE_OBJECTS)).min(1).default(['Contact', 'Lead']),
  /** Replaces https://{myDomain} for every call (tests, proxies). */
  baseUrl: baseUrlSchema,
});
export type SalesforceConfig = z.infer<typeof salesforceConfigSchema>;

export const salesforceOrigin = (config: Pick<SalesforceConfig, 'myDomain' | 'baseUrl'>) =>
  config.baseUrl ?? `https://${config.myDomain}`;

export const salesforceConnector = defineConnector({
  type: 'SALESFORCE',
  label: 'Salesforce',
  // A connected app with the client credentials flow enabled: consumer key (API key) and consumer secret (secret key).
  accountTypes: ['API_KEY_SECRET'],
  accountRequired: true,
  configSchema: salesforceConfigSchema,
  catalogue: {
    category: 'CRM',
    deletes:
      'every Contact and Lead with the email (deleted records go to the Recycle Bin); Individual records are not deleted',
    credentials:
      "connected app consumer key + secret (OAuth client credentials flow); the org's My Domain (acme.my.salesforce.com) is configuration",
    capabilities: { status: false, cancel: false, verify: true },
    notes:
      'SOQL query by email (the value escaped), DELETE per record, then the query again finding none is the proof; REQUEST_LIMIT_EXCEEDED (the daily API limit) waits an hour without using an attempt',
    completion: 'seconds',
    docsUrl: 'https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/dome_delete_record.htm',
  },
});
