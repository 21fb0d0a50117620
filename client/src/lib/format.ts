const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateOnly.format(new Date(iso)) : '—';
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", or a date beyond a month; future times read "in …". */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const diff = now - new Date(iso).getTime();
  const future = diff < 0;
  const s = Math.abs(diff) / 1000;
  let text: string;
  if (s < 45) return future ? 'in a few seconds' : 'just now';
  else if (s < 3600) text = `${Math.round(s / 60)} min`;
  else if (s < 86_400) text = `${Math.round(s / 3600)} h`;
  else if (s < 30 * 86_400) {
    const days = Math.round(s / 86_400);
    text = `${days} day${days === 1 ? '' : 's'}`;
  } else return formatDate(iso);
  return future ? `in ${text}` : `${text} ago`;
}

/** A duration in seconds as "850 ms", "42 s", "3.5 min", "5.2 h", "2.1 days". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${trim(seconds / 60)} min`;
  if (seconds < 86_400) return `${trim(seconds / 3600)} h`;
  return `${trim(seconds / 86_400)} days`;
}

const trim = (n: number) => (Math.round(n * 10) / 10).toString();

export function formatPercent(fraction: number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '—';
  return `${Math.round(fraction * 1000) / 10}%`;
}

export const INTEGRATION_TYPE_LABEL: Record<string, string> = {
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
};
