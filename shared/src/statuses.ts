import { z } from 'zod';

import { REQUEST_STATUSES, type RequestStatus } from './status-values';
import { INTEGRATION_TYPES, type IntegrationType } from './integrations/connectors';

/** Status of an integration request and, rolled up, of its deletion request. */
export { REQUEST_STATUSES, type RequestStatus };
export const requestStatusSchema = z.enum(REQUEST_STATUSES);

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const REQUEST_CHANNELS = ['DASHBOARD', 'API'] as const;
export const requestChannelSchema = z.enum(REQUEST_CHANNELS);

export { INTEGRATION_TYPES, type IntegrationType };
export const integrationTypeSchema = z.enum(INTEGRATION_TYPES);

export const ACCOUNT_TYPES = [
  'API_KEY',
  'API_KEY_SECRET',
  'OAUTH',
  'DATABASE',
  'KEY_VALUE',
  'REDIS',
  'AWS',
  'SNOWFLAKE',
  'GOOGLE_SERVICE_ACCOUNT',
] as const;
export const accountTypeSchema = z.enum(ACCOUNT_TYPES);
