import { z } from 'zod';
import { defineConnector } from './connector';

/** An owner of a manual integration's tasks: a member's address or an outside one (a vendor's privacy desk). */
const ownerEmail = z.string().trim().toLowerCase().pipe(z.email('Each owner must be an email address').max(254));

/**
 * A system without an API: each deletion request opens a task that its owners answer by hand.
 * `instructions` are Markdown; placeholders such as {{email}}, {{phone}}, {{user_id}} or
 * {{identifier}} are filled in only on the task page, never in an email.
 */
export const manualConfigSchema = z.object({
  owners: z
    .array(ownerEmail)
    .min(1, 'Name at least one owner')
    .max(20)
    .refine((list) => new Set(list).size === list.length, 'An owner is named twice'),
  instructions: z.string().trim().max(20_000).default(''),
  /** Days the owners have to answer, from when the task is opened. */
  daysToComplete: z.number().int().min(1).max(365).default(7),
  /** A reminder to the owners every N days while the task is open (0: none). */
  reminderEveryDays: z.number().int().min(0).max(90).default(2),
  /** Tell the organization's admins (email and Slack notifications) when a task is past its days to complete. */
  escalateToAdmins: z.boolean().default(true),
});
export type ManualConfig = z.infer<typeof manualConfigSchema>;

export const manualConnector = defineConnector({
  type: 'MANUAL',
  label: 'Manual (a system without an API)',
  // No credentials: its owners answer by hand through an emailed task link or the dashboard.
  accountTypes: [],
  accountRequired: false,
  configSchema: manualConfigSchema,
  catalogue: {
    category: 'Custom',
    deletes: 'whatever its owners delete by hand (a legacy CRM, a spreadsheet, a vendor reached by email)',
    credentials: 'none: owners (members or outside addresses) get a task link by email',
    capabilities: { status: true, cancel: true, verify: false },
    notes:
      'a task per request, PENDING until an owner answers Done (optional evidence file), Not found or Cannot; reminders, escalation to admins; confirmed by a person, not verified',
    completion: 'the days to complete you set',
    docsUrl: '',
  },
});
