import { z } from 'zod';

/** Events an endpoint can subscribe to. The deadline events come from request deadlines, when they are set. */
export const CALLBACK_EVENT_TYPES = [
  'deletion_request.created',
  'deletion_request.completed',
  'deletion_request.failed',
  'integration_request.failed',
  'deletion_request.at_risk',
  'deletion_request.overdue',
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
