import { z } from 'zod';
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
