import { z } from 'zod';

import { REQUEST_STATUSES, type RequestStatus } from './status-values';

/** Status of an integration request and, rolled up, of its deletion request. */
export { REQUEST_STATUSES, type RequestStatus };
export const requestStatusSchema = z.enum(REQUEST_STATUSES);

export const TERMINAL_STATUSES: readonly RequestStatus[] = ['SUCCESS', 'CANCELED', 'FAILED', 'ERROR'];

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

export const REQUEST_CHANNELS = ['DASHBOARD', 'API'] as const;
export const requestChannelSchema = z.enum(REQUEST_CHANNELS);

export const INTEGRATION_TYPES = [
  'WEBHOOK',
  'POSTGRES',
  'MIXPANEL',
  'AMPLITUDE',
  'SEGMENT',
  'POSTHOG',
  'GOOGLE_ANALYTICS',
  'STRIPE',
  'HUBSPOT',
  'ZENDESK',
  'INTERCOM',
  'MAILCHIMP',
  'SENDGRID',
  'AUTH0',
  'BRAZE',
  'KLAVIYO',
  'CUSTOMERIO',
  'MYSQL',
  'REDIS',
  'S3',
  'DYNAMODB',
] as const;
export const integrationTypeSchema = z.enum(INTEGRATION_TYPES);
export type IntegrationType = z.infer<typeof integrationTypeSchema>;

export const ACCOUNT_TYPES = ['API_KEY', 'API_KEY_SECRET', 'OAUTH', 'DATABASE', 'KEY_VALUE', 'REDIS', 'AWS'] as const;
export const accountTypeSchema = z.enum(ACCOUNT_TYPES);
