import { z } from 'zod';
import { integrationTypeSchema, requestChannelSchema, requestStatusSchema } from '../statuses';

export const IDENTIFIER_MAX_LENGTH = 512;
export const REDACTED_IDENTIFIER = '[redacted]';

/** A subject identifier as entered: trimmed, non-empty, bounded. */
export const identifierSchema = z
  .string()
  .trim()
  .min(1, 'identifier must not be empty')
  .max(IDENTIFIER_MAX_LENGTH, `identifier must be at most ${IDENTIFIER_MAX_LENGTH} characters`)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'identifier must not contain control characters')
  .meta({ description: 'The subject whose data is deleted (email, user id, distinct id...).', example: 'jane@example.com' });

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
    identifier: z.string().nullable().meta({
      description: `The subject identifier. "${REDACTED_IDENTIFIER}" when it has been hashed and fetchHashed is true; the hash when fetchHashed is false; null after retention deleted it.`,
    }),
    hashed: z.boolean(),
    status: requestStatusSchema,
    statusReason: z.string().nullable(),
    channel: requestChannelSchema,
    createdByUserId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
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
      updatedAt: '2026-11-20T09:14:05.120Z',
      completedAt: '2026-11-20T09:14:05.120Z',
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

/** Query booleans are the strings "true" or "false"; anything else is a 400. */
export const queryBoolean = (defaultValue: boolean) =>
  z
    .enum(['true', 'false'], { error: 'must be "true" or "false"' })
    .default(defaultValue ? 'true' : 'false')
    .transform((v) => v === 'true');

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
