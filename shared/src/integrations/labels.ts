import type { IntegrationType } from '../status-values';

/** What each integration type is called in the dashboard and in messages (no zod: the dashboard's first bundle loads it). */
export const INTEGRATION_TYPE_LABELS: Record<IntegrationType, string> = {
  WEBHOOK: 'Webhook',
  POSTGRES: 'PostgreSQL',
  MIXPANEL: 'Mixpanel',
  AMPLITUDE: 'Amplitude',
  SEGMENT: 'Segment',
  POSTHOG: 'PostHog',
  GOOGLE_ANALYTICS: 'Google Analytics 4',
  STRIPE: 'Stripe',
  CUSTOMERIO: 'Customer.io',
  KLAVIYO: 'Klaviyo',
  BRAZE: 'Braze',
  AUTH0: 'Auth0',
  SENDGRID: 'SendGrid',
  MAILCHIMP: 'Mailchimp',
  INTERCOM: 'Intercom',
  ZENDESK: 'Zendesk',
  HUBSPOT: 'HubSpot',
  MYSQL: 'MySQL / MariaDB',
  REDIS: 'Redis',
  S3: 'Amazon S3',
  DYNAMODB: 'Amazon DynamoDB',
  MANUAL: 'Manual (a system without an API)',
  BIGQUERY: 'Google BigQuery',
};

/** The label of a type read as a plain string (an aggregate, say); an unknown one is shown as it is. */
export function integrationTypeLabel(type: string): string {
  return (INTEGRATION_TYPE_LABELS as Record<string, string>)[type] ?? type;
}
