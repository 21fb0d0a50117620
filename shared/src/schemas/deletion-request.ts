import { z } from 'zod';
import { integrationTypeSchema, requestChannelSchema, requestStatusSchema } from '../statuses';
import { CANCEL_REASONS } from '../cancel-reasons';

export const IDENTIFIER_MAX_LENGTH = 512;
export const REDACTED_IDENTIFIER = '[redacted]';

/** A subject identifier as entered: trimmed, non-empty, bounded. */
export const identifierSchema = z
  .string()
  .trim()
  .min(1, 'identifier must not be empty')
  .max(IDENTIFIER_MAX_LENGTH, `identifier must be at most ${IDENTIFIER_MAX_LENGTH} characters`)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'identifier must not contain control characters')
  .meta({
    description: 'The subject whose data is deleted (email, user id, distinct id...).',
    example: 'jane@example.com',
  });

export const integrationRequestSchema = z
  .object({
    id: z.string(),
    integrationId: z.string().nullable(),
    name: z.string(),
    type: integrationTypeSchema,
    status: requestStatusSchema,
    attempts: z.number().int(),
    trackingId: z.string().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
  })
  .meta({
    id: 'IntegrationRequest',
    description: 'The part of a deletion request sent to one integration.',
    example: {
      id: 'ir_01JDX4Q2W8E6R7T9Y3U5I1O0PB',
      integrationId: 'int_01JDX1B4C6D8E0F2G4H6J8K0LM',
      name: 'CRM',
      type: 'WEBHOOK',
      status: 'SUCCESS',
      attempts: 1,
      trackingId: 'job-4711',
      lastError: null,
      nextAttemptAt: null,
      createdAt: '2026-11-20T09:14:03.000Z',
      updatedAt: '2026-11-20T09:14:05.120Z',
      completedAt: '2026-11-20T09:14:05.120Z',
    },
  });
export type IntegrationRequestDto = z.infer<typeof integrationRequestSchema>;

export const deletionRequestSchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    workspaceId: z.string(),
    identifier: z
      .string()
      .nullable()
      .meta({
        description: `The subject identifier. "${REDACTED_IDENTIFIER}" when it has been hashed and fetchHashed is true; the hash when fetchHashed is false; null after retention deleted it.`,
      }),
    hashed: z.boolean(),
    status: requestStatusSchema,
    statusReason: z.string().nullable(),
    channel: requestChannelSchema,
    createdByUserId: z.string().nullable(),
    createdAt: z.string(),
    receivedAt: z.string().meta({
      description:
        "When the subject's request was received (the deadline runs from then): the time given on create, else createdAt.",
    }),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    regulation: z
      .string()
      .nullable()
      .meta({ description: 'The regulation whose deadline applies: "GDPR", "CCPA" or a custom policy name.' }),
    dueAt: z.string().nullable().meta({ description: 'The legal deadline (ISO 8601), after any extension.' }),
    dueExtendedAt: z.string().nullable().meta({ description: 'When the deadline was extended, if it was.' }),
    receiptConfirmBy: z.string().nullable().meta({
      description:
        'When receipt of the request must be confirmed to the subject (CCPA: 10 business days after receipt, Monday to Friday on the California calendar); null when the regulation asks for no such confirmation.',
    }),
    receiptConfirmedAt: z.string().nullable().meta({
      description: 'When the confirmation of receipt was sent to the subject, as recorded; null until it is.',
    }),
    cancelReason: z.enum(CANCEL_REASONS).nullable().meta({
      description:
        'Why the request was canceled (closed without being fulfilled), as given on cancel; null when none was given or it was not canceled.',
    }),
    cancelNote: z
      .string()
      .nullable()
      .meta({ description: 'The words given with the cancel reason (always for `other`).' }),
    integrationRequests: z.array(integrationRequestSchema).optional(),
  })
  .meta({
    id: 'DeletionRequest',
    example: {
      id: 'dr_01JDX4Q2W8E6R7T9Y3U5I1O0PA',
      organizationId: 'org_01JDX0A2B4C6D8E0F2G4H6J8K0',
      workspaceId: 'ws_01JDX0Z9Y8X7W6V5U4T3S2R1Q0',
      identifier: 'jane@example.com',
      hashed: false,
      status: 'SUCCESS',
      statusReason: null,
      channel: 'API',
      createdByUserId: 'usr_01JDX0M1N2P3Q4R5S6T7V8W9X0',
      createdAt: '2026-11-20T09:14:03.000Z',
      receivedAt: '2026-11-20T09:14:03.000Z',
      updatedAt: '2026-11-20T09:14:05.120Z',
      completedAt: '2026-11-20T09:14:05.120Z',
      regulation: 'GDPR',
      dueAt: '2026-12-20T09:14:03.000Z',
      dueExtendedAt: null,
      receiptConfirmBy: null,
      receiptConfirmedAt: null,
      cancelReason: null,
      cancelNote: null,
      integrationRequests: [
        {
          id: 'ir_01JDX4Q2W8E6R7T9Y3U5I1O0PB',
          integrationId: 'int_01JDX1B4C6D8E0F2G4H6J8K0LM',
          name: 'CRM',
          type: 'WEBHOOK',
          status: 'SUCCESS',
          attempts: 1,
          trackingId: 'job-4711',
          lastError: null,
          nextAttemptAt: null,
          createdAt: '2026-11-20T09:14:03.000Z',
          updatedAt: '2026-11-20T09:14:05.120Z',
          completedAt: '2026-11-20T09:14:05.120Z',
        },
      ],
    },
  });
export type DeletionRequestDto = z.infer<typeof deletionRequestSchema>;

const RECEIVED_AT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
/** A date alone is the start of that day in UTC. */
const receivedInstant = (value: string) => new Date(value.length === 10 ? `${value}T00:00:00Z` : value);

/** A date (the start of that day in UTC) or a date and time with its offset, as an instant. */
const instantText = z
  .string()
  .trim()
  .regex(RECEIVED_AT, 'Give a date (2026-11-20) or a date and time with its offset (2026-11-20T09:14:03Z)')
  .refine((value) => {
    const instant = receivedInstant(value);
    // A calendar date that does not exist (2026-02-30) is refused rather than rolled over.
    return !Number.isNaN(instant.getTime()) && (value.length !== 10 || instant.toISOString().startsWith(value));
  }, 'Not a date that exists');

/**
 * When the subject's request was received, if before it is entered here (a request by email, a
 * backlog): a date (`2026-11-20`, kept as that date: the start of that day in the organization's
 * time zone) or a date and time with its
 * offset. The deadline runs from it; a time in the future is refused.
 */
export const receivedAtSchema = instantText
  // A date alone stays a date: the start of that day in the organization's time zone, read where it is known.
  .transform((value) => (value.length === 10 ? value : receivedInstant(value)))
  .meta({
    description:
      "When the subject's request was received, if earlier than now (the deadline runs from then): a date (the start of that day in the organization's time zone) or a date and time with its offset. Not in the future.",
    example: '2026-11-18T16:40:00Z',
  });

/**
 * When the subject was told their request was received, if not now (a confirmation sent earlier).
 * A date alone is the end of that day in UTC (now, for today): still that day in the Americas,
 * where a deadline's business days are counted, and never earlier than the sending was.
 */
export const confirmedAtSchema = instantText
  .transform((value) => {
    if (value.length !== 10) return receivedInstant(value);
    const start = Date.parse(`${value}T00:00:00Z`);
    const end = start + 86_400_000 - 1;
    // A day still to come stays in the future (and is refused as such).
    return new Date(start <= Date.now() ? Math.min(end, Date.now()) : end);
  })
  .meta({
    description:
      'When the confirmation of receipt was sent to the subject, if not now: a date (the end of that day in UTC, or now for today) or a date and time with its offset. Not in the future, not before the request was received.',
    example: '2026-11-19T10:05:00Z',
  });

/** A query string's spelling of a boolean: true/false in any case, or 1/0 (what common HTTP clients send). */
function queryBooleanValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  return word === 'true' || word === '1' ? true : word === 'false' || word === '0' ? false : value;
}

/**
 * A boolean query parameter (a boolean in the OpenAPI document): `true`/`false` in any case or
 * `1`/`0`; anything else is a 400.
 */
export const queryBoolean = (defaultValue: boolean) =>
  z.preprocess(queryBooleanValue, z.boolean({ error: 'must be true or false' }).default(defaultValue));

export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1000;

export const listQuerySchema = z.object({
  fetchIntegrationRequests: queryBoolean(true).meta({ description: 'Include integrationRequests on each item.' }),
  fetchHashed: queryBoolean(true).meta({ description: 'When true, an identifier that has been hashed is redacted.' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .default(LIST_LIMIT_DEFAULT)
    .meta({ description: `Page size (1-${LIST_LIMIT_MAX}).` }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Opaque cursor from the previous page\'s Link rel="next" header.' }),
});

/** Ids as the service makes them (`dr_…`, `ir_…`); anything else is a 400, not a lookup. */
const prefixedId = (prefix: string, what: string, example: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9a-z]{1,40}$`), `must be a ${what} id (${prefix}_…)`)
    .meta({ description: `The ${what}'s id.`, example });

export const deletionRequestIdSchema = prefixedId('dr', 'deletion request', 'dr_01jdx4q2w8e6r7t9y3u5');
export const integrationRequestIdSchema = prefixedId('ir', 'integration request', 'ir_01jdx4q2w8e6r7t9y3u6');

/** Which configuration a retry sends: the snapshot frozen when the request was submitted, or the integration's configuration now. */
export const retryConfigurationSchema = z.enum(['submitted', 'current']).meta({
  description:
    "`submitted` (default): the configuration frozen when the request was created. `current`: the integration's configuration now (after fixing a URL or a rule), which replaces the snapshot.",
});
export type RetryConfiguration = z.infer<typeof retryConfigurationSchema>;

export const CANCEL_NOTE_MAX_LENGTH = 500;

/**
 * Why a request is canceled. Optional over the API (callers written before it keep working; the
 * request then reads "Closed — not fulfilled" without a reason); the dashboard always asks.
 */
export const cancelBody = {
  reason: z.enum(CANCEL_REASONS).optional().meta({
    description:
      'Why the request is closed without being fulfilled: `withdrawn` (by the person), `identity_not_verified`, `legal_exemption`, `duplicate`, or `other` (then `note` is required).',
  }),
  note: z
    .string()
    .trim()
    .min(1, 'note must not be empty')
    .max(CANCEL_NOTE_MAX_LENGTH, `note must be at most ${CANCEL_NOTE_MAX_LENGTH} characters`)
    .optional()
    .meta({ description: 'Words to go with the reason; required when the reason is `other`.' }),
};

/** `other` says nothing by itself: its note is required. */
export function requireNoteForOther(input: { reason?: string; note?: string }, ctx: z.RefinementCtx) {
  if (input.reason === 'other' && !input.note)
    ctx.addIssue({ code: 'custom', path: ['note'], message: 'say why in note when the reason is other' });
}

/** What an action on a deletion request did, with the request as it is afterwards. */
export const deletionRequestActionResultSchema = z
  .object({
    deletionRequest: deletionRequestSchema,
    integrationRequestIds: z
      .array(z.string())
      .meta({ description: 'The integration requests the action was applied to.' }),
    refused: z.array(z.object({ integrationRequestId: z.string(), reason: z.string() })).meta({
      description:
        'Integration requests the action could not be applied to, each with the reason (a destination that cannot cancel any more).',
    }),
    message: z.string().meta({
      description: 'What happened, in a sentence (for a cancel at a destination, what the destination answered).',
    }),
  })
  .meta({
    id: 'DeletionRequestActionResult',
    example: {
      deletionRequest: {
        id: 'dr_01jdx4q2w8e6r7t9y3u5',
        organizationId: 'org_01jdx0a2b4c6d8e0f2g4',
        workspaceId: 'ws_01jdx0z9y8x7w6v5t4s3',
        identifier: 'jane@example.com',
        hashed: false,
        status: 'STAGING',
        statusReason: null,
        channel: 'API',
        createdByUserId: 'usr_01jdx0m1n2p3q4r5s6t7',
        createdAt: '2026-11-20T09:14:03.000Z',
        receivedAt: '2026-11-20T09:14:03.000Z',
        updatedAt: '2026-11-20T10:02:11.480Z',
        regulation: 'GDPR',
        dueAt: '2026-12-20T09:14:03.000Z',
        dueExtendedAt: null,
        receiptConfirmBy: null,
        receiptConfirmedAt: null,
        cancelReason: null,
        cancelNote: null,
        completedAt: null,
        integrationRequests: [
          {
            id: 'ir_01jdx4q2w8e6r7t9y3u6',
            integrationId: 'int_01jdx1b4c6d8e0f2g4h6',
            name: 'CRM',
            type: 'WEBHOOK',
            status: 'STAGING',
            attempts: 0,
            trackingId: null,
            lastError: null,
            nextAttemptAt: '2026-11-20T10:02:11.480Z',
            createdAt: '2026-11-20T09:14:03.000Z',
            updatedAt: '2026-11-20T10:02:11.480Z',
            completedAt: null,
          },
        ],
      },
      integrationRequestIds: ['ir_01jdx4q2w8e6r7t9y3u6'],
      refused: [],
      message: '1 integration request sent again with the configuration it was submitted with',
    },
  });
export type DeletionRequestActionResult = z.infer<typeof deletionRequestActionResultSchema>;

/** One entry of a deletion request's audit trail; recorded payloads carry no account secret. */
export const auditEntrySchema = z
  .object({
    id: z.string().meta({ description: 'Increasing id; also the pagination cursor.' }),
    integrationRequestId: z.string().nullable(),
    actorType: z.string().meta({ description: '`system` (the workers), `user:pat`, `user:dashboard` or `user:cli`.' }),
    actorId: z.string().nullable(),
    action: z.string().meta({
      description: 'What happened, e.g. `request.created`, `deletion.attempt`, `deletion.cancel`, `deletion.retried`.',
    }),
    outcome: z.string().nullable(),
    summary: z.string(),
    details: z.unknown().meta({
      description:
        'What was recorded: HTTP exchanges (secrets redacted, bodies truncated at 4 KB), SQL statements and row counts, evidence. null when nothing was recorded or retention removed it.',
    }),
    createdAt: z.string().meta({ description: 'When it happened; for folded status checks, the first of them.' }),
    repeatCount: z.number().int().min(1).meta({
      description:
        'How many identical status checks this entry stands for (1: just itself). Repeats are counted on the entry instead of adding one per check; the count is not covered by the audit hash chain.',
    }),
    lastRepeatedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the last status check folded into this entry ran; null when none was.' }),
  })
  .meta({
    id: 'AuditEntry',
    example: {
      id: '1042',
      integrationRequestId: 'ir_01jdx4q2w8e6r7t9y3u6',
      actorType: 'system',
      actorId: null,
      action: 'deletion.attempt',
      outcome: 'SUCCESS',
      summary: 'POST https://crm.example.com/erase answered 200',
      details: {
        exchanges: [
          {
            request: { method: 'POST', url: 'https://crm.example.com/erase', headers: { authorization: '[redacted]' } },
            response: { status: 200 },
          },
        ],
      },
      createdAt: '2026-11-20T09:14:05.120Z',
      repeatCount: 1,
      lastRepeatedAt: null,
    },
  });
export type AuditEntryDto = z.infer<typeof auditEntrySchema>;

export const AUDIT_TRAIL_LIMIT_DEFAULT = 100;
export const AUDIT_TRAIL_LIMIT_MAX = 1000;

export const auditTrailQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(AUDIT_TRAIL_LIMIT_MAX)
    .default(AUDIT_TRAIL_LIMIT_DEFAULT)
    .meta({ description: `Page size (1-${AUDIT_TRAIL_LIMIT_MAX}).` }),
  cursor: z
    .string()
    .regex(/^\d{1,19}$/, 'must be the cursor of a Link rel="next" header')
    .optional()
    .meta({ description: 'Opaque cursor from the previous page\'s Link rel="next" header.' }),
});
