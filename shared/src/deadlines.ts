import { z } from 'zod';
import { addBusinessDays, businessDaysLeft, daysLeft } from './days-left';
import { confirmedAtSchema } from './schemas/deletion-request';
import { addMonthsToDay, canonicalTimeZone, DAY_MS, dayIn, endOfDayIn, isIanaTimeZone } from './zoned-days';

/**
 * Legal deadlines. GDPR Art. 12(3): one month from receipt, extendable by two further
 * months; CCPA/CPRA (Cal. Civ. Code 1798.130(a)(2)): 45 days, extendable once by 45 days.
 * Organizations may define their own policies of N days (extendable by M).
 * Counted in calendar days in the organization's time zone: the day of receipt there, plus the
 * month (the same day-of-month, or the last day of a shorter month) or the days, and the deadline
 * is the end of that last day there, whatever the clocks did in between.
 */
export const BUILT_IN_REGULATIONS = ['GDPR', 'CCPA'] as const;
export type BuiltInRegulation = (typeof BUILT_IN_REGULATIONS)[number];

/** A regulation as the arithmetic needs it; custom policies carry their own numbers. */
export type RegulationRule =
  | { name: 'GDPR'; kind: 'months'; months: 1; extensionMonths: 2 }
  | { name: 'CCPA'; kind: 'days'; days: 45; extensionDays: 45 }
  | { name: string; kind: 'days'; days: number; extensionDays: number };

export const GDPR_RULE: RegulationRule = { name: 'GDPR', kind: 'months', months: 1, extensionMonths: 2 };
export const CCPA_RULE: RegulationRule = { name: 'CCPA', kind: 'days', days: 45, extensionDays: 45 };

export function isBuiltInRegulation(name: string): name is BuiltInRegulation {
  return (BUILT_IN_REGULATIONS as readonly string[]).includes(name);
}

export function builtInRule(name: BuiltInRegulation): RegulationRule {
  return name === 'GDPR' ? GDPR_RULE : CCPA_RULE;
}

/** The end, in `timeZone`, of the day that is `months` months and `days` days after the day of `receivedAt` there. */
function endOfDayAfter(receivedAt: Date, timeZone: string, months: number, days: number): Date {
  return endOfDayIn(addMonthsToDay(dayIn(receivedAt, timeZone), months) + days * DAY_MS, timeZone);
}

/** The deadline of a request received at `receivedAt`, counted in calendar days in `timeZone`. */
export function dueAtFor(rule: RegulationRule, receivedAt: Date, timeZone = 'UTC'): Date {
  return rule.kind === 'months'
    ? endOfDayAfter(receivedAt, timeZone, rule.months, 0)
    : endOfDayAfter(receivedAt, timeZone, 0, rule.days);
}

/**
 * The deadline after the one extension the regulation allows, counted from receipt so a
 * clamped month end does not shorten it (31 Jan: due 28 Feb, extended to 30 Apr).
 * Null when the policy allows no extension.
 */
export function extendedDueAtFor(rule: RegulationRule, receivedAt: Date, timeZone = 'UTC'): Date | null {
  if (rule.kind === 'months') return endOfDayAfter(receivedAt, timeZone, rule.months + rule.extensionMonths, 0);
  if (rule.extensionDays <= 0) return null;
  return endOfDayAfter(receivedAt, timeZone, 0, rule.days + rule.extensionDays);
}

/** Whole days until the deadline, rounded up (due later today: 1... overdue: 0 or less, e.g. -2 = two days late). */
export { addBusinessDays, businessDaysLeft, daysLeft };

export function isOverdue(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() <= now.getTime();
}

/**
 * CCPA regulations (Cal. Code Regs. tit. 11 §7021(a)): receipt of a request to delete is
 * confirmed to the consumer within 10 business days. GDPR asks for no such step, and custom
 * policies set a deadline only.
 */
export const RECEIPT_CONFIRMATION_BUSINESS_DAYS = 10;

/** When receipt of a request under `regulation` received at `receivedAt` must be confirmed; null when never. */
export function receiptConfirmByFor(regulation: string, receivedAt: Date): Date | null {
  return regulation === 'CCPA' ? addBusinessDays(receivedAt, RECEIPT_CONFIRMATION_BUSINESS_DAYS) : null;
}

/** How a regulation's extension reads to people. */
export function extensionLabel(rule: RegulationRule): string {
  if (rule.kind === 'months') return `${rule.extensionMonths} months`;
  return `${rule.extensionDays} days`;
}

const REGULATION_NAME_MAX = 40;

/** A regulation as given on create: "GDPR", "CCPA" or a custom policy's name (checked against the organization's). */
export const regulationNameSchema = z
  .string()
  .trim()
  .min(1, 'regulation must not be empty')
  .max(REGULATION_NAME_MAX, `regulation must be at most ${REGULATION_NAME_MAX} characters`)
  .meta({
    description:
      'The regulation whose deadline applies: "GDPR", "CCPA" (covers CPRA), or the name of a custom policy of the organization.',
    example: 'GDPR',
  });

/** A custom deadline policy. */
export const regulationPolicyInputSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Required')
    .max(REGULATION_NAME_MAX, `Use at most ${REGULATION_NAME_MAX} characters`)
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'Use letters, digits, spaces, dots, dashes and underscores')
    .refine((n) => !isBuiltInRegulation(n.toUpperCase()), 'GDPR and CCPA are built in; choose another name'),
  days: z.number().int().min(1, 'At least 1 day').max(3650),
  extensionDays: z.number().int().min(0).max(3650).default(0),
});

export const extendDeadlineInputSchema = z.object({
  deletionRequestId: z.string().min(1).max(64),
  reason: z.string().trim().min(10, 'Give the reason in at least 10 characters (it is told to the subject)').max(1000),
});

export const confirmReceiptInputSchema = z.object({
  deletionRequestId: z.string().min(1).max(64),
  confirmedAt: confirmedAtSchema.optional(),
  note: z
    .string()
    .trim()
    .max(500, 'Use at most 500 characters')
    .optional()
    .meta({ description: 'How the subject was told (e.g. "Emailed from privacy@"); recorded in the audit trail.' }),
});

export const correctReceiptInputSchema = z.object({
  deletionRequestId: z.string().min(1).max(64),
  confirmedAt: confirmedAtSchema.nullable().meta({
    description:
      'When the confirmation was really sent (a date-time, or a date as for recording it); null when it was not sent (recorded on the wrong request, say): the receipt is then still to confirm.',
  }),
  reason: z
    .string()
    .trim()
    .min(1, 'Say why the record is corrected')
    .max(500, 'Use at most 500 characters')
    .meta({ description: 'Why the record is corrected; kept in the audit trail.' }),
});

/** Deadline filters of the Requests screen. */
export { DUE_FILTERS } from './status-values';

/** An organization's time zone: an IANA name ("Europe/Berlin", "America/Los_Angeles", "UTC"). */
export const timeZoneSchema = z
  .string()
  .trim()
  .max(64, 'timeZone must be at most 64 characters')
  .refine(isIanaTimeZone, 'timeZone must be an IANA time zone name, such as Europe/Berlin or America/Los_Angeles')
  .transform(canonicalTimeZone)
  .meta({ description: 'IANA time zone whose calendar days deadlines count.', example: 'Europe/Berlin' });
