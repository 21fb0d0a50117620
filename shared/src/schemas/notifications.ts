import { z } from 'zod';
import { emailSchema } from './auth';

/** What an organization can be told about, by email and/or Slack. */
export const NOTIFICATION_EVENTS = [
  'integration_failed',
  'credentials_failing',
  'deadline_digest',
  'request_completed',
  'data_reappeared',
  'manual_task_overdue',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export const NOTIFICATION_EVENT_LABEL: Record<NotificationEvent, string> = {
  integration_failed: 'An integration failed',
  credentials_failing: 'Credentials are failing (401/403, authentication refused)',
  deadline_digest: 'Daily digest of overdue and at-risk requests',
  request_completed: 'A request completed (optional)',
  data_reappeared: 'Deleted data reappeared at re-verification',
  manual_task_overdue: 'A manual task is past its days to complete (escalation to admins)',
};

const channelsSchema = z.object({ email: z.boolean(), slack: z.boolean() });
export type NotificationChannels = z.infer<typeof channelsSchema>;

/** Everything on by email and Slack except "request completed", which is noisy. */
export const DEFAULT_NOTIFICATION_EVENTS: Record<NotificationEvent, NotificationChannels> = {
  integration_failed: { email: true, slack: true },
  credentials_failing: { email: true, slack: true },
  deadline_digest: { email: true, slack: true },
  request_completed: { email: false, slack: false },
  data_reappeared: { email: true, slack: true },
  manual_task_overdue: { email: true, slack: true },
};

export const notificationSettingsInputSchema = z.object({
  // Events added later may be left out (a client that does not know them yet): they keep their defaults.
  events: z.object(
    Object.fromEntries(
      NOTIFICATION_EVENTS.map((e) => [e, e === 'manual_task_overdue' ? channelsSchema.optional() : channelsSchema]),
    ) as Record<Exclude<NotificationEvent, 'manual_task_overdue'>, typeof channelsSchema> & {
      manual_task_overdue: z.ZodOptional<typeof channelsSchema>;
    },
  ),
  /** Empty: the organization's owners and admins. */
  emailRecipients: z.array(emailSchema).max(20),
  /** undefined: keep the stored webhook; null: remove it; a URL: replace it. */
  slackWebhookUrl: z
    .url({ protocol: /^https?$/, error: 'Enter the https:// URL of a Slack incoming webhook' })
    .max(500)
    .nullable()
    .optional(),
});
export type NotificationSettingsInput = z.infer<typeof notificationSettingsInputSchema>;
