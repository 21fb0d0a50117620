import { z } from 'zod';

/** Events an endpoint can subscribe to. The deadline events come from request deadlines, when they are set. */
export const CALLBACK_EVENT_TYPES = [
  'deletion_request.created',
  'deletion_request.completed',
  'deletion_request.failed',
  'integration_request.failed',
  'deletion_request.at_risk',
  'deletion_request.overdue',
  'deletion_request.receipt_overdue',
] as const;
export const callbackEventTypeSchema = z.enum(CALLBACK_EVENT_TYPES);
export type CallbackEventType = z.infer<typeof callbackEventTypeSchema>;

export const CALLBACK_EVENT_LABELS: Record<CallbackEventType, string> = {
  'deletion_request.created': 'A deletion request was created',
  'deletion_request.completed': 'A deletion request finished (any final status, in data.status)',
  'deletion_request.failed': 'A deletion request finished FAILED or ERROR',
  'integration_request.failed': 'One integration of a request failed',
  'deletion_request.at_risk': 'A request is close to its deadline',
  'deletion_request.overdue': 'A request passed its deadline',
  'deletion_request.receipt_overdue': 'A receipt was not confirmed to the subject by its date (CCPA)',
};

const callbackUrlSchema = z
  .string()
  .trim()
  .max(2000)
  .pipe(z.url({ protocol: /^https?$/, error: 'Enter an http(s) URL' }))
  .meta({
    description:
      'Where events are POSTed. HTTPS (plain http only to hosts OUTBOUND_ALLOWLIST allows, for development).',
    example: 'https://hooks.example.org/deletions',
  });

export const createCallbackEndpointInputSchema = z.object({
  url: callbackUrlSchema,
  description: z.string().trim().max(200).default(''),
  events: z.array(callbackEventTypeSchema).min(1, 'Choose at least one event').max(CALLBACK_EVENT_TYPES.length),
  /** Omitted: every workspace of the organization. */
  workspaceId: z.string().max(64).nullable().optional(),
});

export const updateCallbackEndpointInputSchema = z.object({
  endpointId: z.string().max(64),
  url: callbackUrlSchema.optional(),
  description: z.string().trim().max(200).optional(),
  events: z
    .array(callbackEventTypeSchema)
    .min(1, 'Choose at least one event')
    .max(CALLBACK_EVENT_TYPES.length)
    .optional(),
  enabled: z.boolean().optional(),
});

export const rotateCallbackSecretInputSchema = z.object({
  endpointId: z.string().max(64),
  /** How long the old secret keeps signing next to the new one (0: it stops at once). */
  overlapHours: z.number().int().min(0).max(168).default(24),
});

const ENDPOINT_EXAMPLE = {
  id: 'cbe_4kq2m8x1w7',
  workspaceId: null,
  url: 'https://hooks.example.org/deletions',
  description: 'Partner CRM',
  events: ['deletion_request.completed', 'deletion_request.failed'],
  enabled: true,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-20T09:14:03.000Z',
  updatedAt: '2026-11-20T09:14:03.000Z',
};

/** A callback endpoint as the API shows it: never its signing secret (only create and rotate answer it, once). */
export const callbackEndpointSchema = z
  .object({
    id: z.string(),
    workspaceId: z.string().nullable().meta({ description: 'Null: events of every workspace of the organization.' }),
    url: z.string(),
    description: z.string(),
    events: z.array(callbackEventTypeSchema),
    enabled: z.boolean(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .meta({ description: 'After a rotation: until when the previous secret also signs each delivery.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CallbackEndpoint', example: ENDPOINT_EXAMPLE });
export type CallbackEndpoint = z.infer<typeof callbackEndpointSchema>;

/** Create and rotate: the endpoint with its (new) signing secret, shown this once. */
export const callbackEndpointWithSecretSchema = callbackEndpointSchema
  .extend({
    secret: z.string().meta({
      description:
        'The signing secret (`whsec_…`), in this answer only (and in the replay of a call with the same Idempotency-Key, for 24 hours; kept encrypted meanwhile).',
    }),
  })
  .meta({
    id: 'CallbackEndpointWithSecret',
    example: { ...ENDPOINT_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  });
export type CallbackEndpointWithSecret = z.infer<typeof callbackEndpointWithSecretSchema>;

export const callbackDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The `webhook-id` header of every attempt.' }),
    endpointId: z.string(),
    eventType: z.string(),
    deletionRequestId: z.string().nullable(),
    status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    body: z.string().meta({ description: 'The exact JSON body that is signed and sent.' }),
  })
  .meta({ id: 'CallbackDelivery' });

export const callbackDeliveryPageSchema = z
  .object({
    items: z.array(callbackDeliverySchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next (older) page; null on the last page.' }),
  })
  .meta({
    id: 'CallbackDeliveryPage',
    example: {
      items: [
        {
          id: 'msg_2mJx8d3k1q',
          endpointId: ENDPOINT_EXAMPLE.id,
          eventType: 'deletion_request.completed',
          deletionRequestId: 'dr_9r3f6gs0x92exe307ckw',
          status: 'DELIVERED',
          attempts: 1,
          nextAttemptAt: null,
          lastStatusCode: 204,
          lastError: null,
          lastAttemptAt: '2026-11-20T09:15:10.000Z',
          deliveredAt: '2026-11-20T09:15:10.000Z',
          createdAt: '2026-11-20T09:15:09.000Z',
          body: '{"type":"deletion_request.completed","timestamp":"2026-11-20T09:15:09.000Z","data":{"deletionRequest":{"id":"dr_9r3f6gs0x92exe307ckw","status":"SUCCESS"}}}',
        },
      ],
      nextCursor: null,
    },
  });
