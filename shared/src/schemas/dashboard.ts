import { identifierTypeNameSchema } from '../identifiers';
import { z } from 'zod';
import { requestStatusSchema } from '../statuses';
import { DUE_FILTERS, regulationNameSchema } from '../deadlines';
import { identifierSchema } from './deletion-request';

export const DASHBOARD_PAGE_SIZE_DEFAULT = 25;
export const DASHBOARD_PAGE_SIZE_MAX = 100;

const cursorSchema = z.string().max(200).nullish();
const idSchema = z.string().min(1).max(64);

/** Filters of the Requests screen; every filter is optional and they combine with AND. */
export const requestSearchFilterSchema = z
  .object({
    workspaceId: idSchema.optional(),
    statuses: z.array(requestStatusSchema).max(7).optional(),
    createdFrom: z.iso.datetime({ offset: true, error: 'Enter a valid start date' }).optional(),
    createdTo: z.iso.datetime({ offset: true, error: 'Enter a valid end date' }).optional(),
    createdByUserId: idSchema.optional(),
    /** Matched exactly (after trimming) through the identifier's keyed hash, never by substring. */
    identifier: identifierSchema.optional(),
    /**
     * "overdue": past its deadline and not fulfilled; "due7": fulfilment due within 7 days;
     * "unconfirmed": receipt still to be confirmed to the subject (CCPA), not canceled.
     */
    due: z.enum(DUE_FILTERS).optional(),
  })
  // Compared as instants: the two may carry different offsets (10:00+05:00 is before 06:00Z).
  .refine((f) => !f.createdFrom || !f.createdTo || Date.parse(f.createdFrom) <= Date.parse(f.createdTo), {
    path: ['createdTo'],
    message: 'The end date must not be before the start date',
  });
export type RequestSearchFilter = z.infer<typeof requestSearchFilterSchema>;

export const requestSearchInputSchema = z.object({
  filter: requestSearchFilterSchema.default({}),
  /** Newest first (default), or the nearest deadline first. */
  sort: z.enum(['created', 'due']).default('created'),
  limit: z.number().int().min(1).max(DASHBOARD_PAGE_SIZE_MAX).default(DASHBOARD_PAGE_SIZE_DEFAULT),
  cursor: cursorSchema,
});

export const requestDetailInputSchema = z.object({ deletionRequestId: idSchema });

export const OVERVIEW_WINDOWS = [7, 30, 90] as const;
export const overviewInputSchema = z.object({
  days: z
    .union(OVERVIEW_WINDOWS.map((d) => z.literal(d)) as [z.ZodLiteral<7>, z.ZodLiteral<30>, z.ZodLiteral<90>])
    .default(30),
  /** IANA time zone the per-day buckets are cut in, so "today" is the viewer's today. */
  timeZone: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_+\-/]+$/)
    .default('UTC'),
});

/** Who acted: a member's user id, SYSTEM for the service itself (workers, retention), or PEOPLE for any member. */
export const AUDIT_SYSTEM_ACTOR = 'SYSTEM';
export const AUDIT_PEOPLE_ACTORS = 'PEOPLE';

/** Filters of the organization audit log; they combine with AND. */
export const auditLogFilterSchema = z
  .object({
    /** Exact action names such as `request.hashed`, `workspace.created`. */
    actions: z.array(z.string().min(1).max(64)).max(50).optional(),
    /** `admin`: entries about the organization's set-up only (no deletion request); `requests`: the opposite. */
    scope: z.enum(['all', 'admin', 'requests']).optional(),
    actorId: idSchema.optional(),
    workspaceId: idSchema.optional(),
    deletionRequestId: z.string().trim().min(1, 'Enter a request id').max(64).optional(),
    createdFrom: z.iso.datetime({ offset: true, error: 'Enter a valid start date' }).optional(),
    createdTo: z.iso.datetime({ offset: true, error: 'Enter a valid end date' }).optional(),
  })
  .refine((f) => !f.createdFrom || !f.createdTo || f.createdFrom <= f.createdTo, {
    path: ['createdTo'],
    message: 'The end date must not be before the start date',
  });
export type AuditLogFilter = z.infer<typeof auditLogFilterSchema>;

export const auditLogInputSchema = z.object({
  limit: z.number().int().min(1).max(DASHBOARD_PAGE_SIZE_MAX).default(50),
  cursor: cursorSchema,
  filter: auditLogFilterSchema.default({}),
});

/** The dashboard's "Create request" form. */
export const createRequestFormSchema = z.object({
  workspaceId: z.string().min(1, 'Choose a workspace').max(64),
  // The form's own words first; then every rule of the API's identifier.
  identifier: z.string().trim().min(1, 'Enter an identifier').pipe(identifierSchema),
  /** Empty: email when the identifier reads as one, else untyped. */
  identifierType: identifierTypeNameSchema.optional(),
  /** Empty: the workspace's regulation. */
  regulation: regulationNameSchema.optional(),
  /** Empty: received now. A day in the viewer's zone, sent as the instant it starts there (client/src/lib/viewer-days.ts). */
  receivedAt: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date, or leave it empty if the request came in today')
    .optional(),
});
