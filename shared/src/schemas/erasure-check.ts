import { z } from 'zod';
import { requestStatusSchema } from '../statuses';
import { identifierSchema } from './deletion-request';

export const ERASURE_CHECK_BATCH_MAX = 1000;

export const erasureCheckInputSchema = z.object({ identifier: identifierSchema });

export const erasureCheckBatchInputSchema = z.object({
  identifiers: z
    .array(identifierSchema)
    .min(1, 'identifiers must not be empty')
    .max(ERASURE_CHECK_BATCH_MAX, `at most ${ERASURE_CHECK_BATCH_MAX} identifiers per call`)
    .meta({
      description: `1 to ${ERASURE_CHECK_BATCH_MAX} subject identifiers.`,
      example: ['jane@example.com', 'user-4711'],
    }),
});

export const erasureCheckResultSchema = z
  .object({
    found: z.boolean().meta({
      description: "A deletion request exists for this subject in the organization (in the token's workspaces).",
    }),
    erased: z.boolean().meta({ description: 'At least one of those requests finished with SUCCESS.' }),
    deletionRequestId: z.string().nullable().meta({ description: 'The latest request for this subject.' }),
    status: requestStatusSchema.nullable().meta({ description: 'Status of the latest request.' }),
    requestedAt: z.string().nullable().meta({ description: 'When the latest request was created.' }),
    completedAt: z.string().nullable().meta({ description: 'When the latest request finished (any final status).' }),
    erasedAt: z
      .string()
      .nullable()
      .meta({ description: 'When a request for this subject first finished with SUCCESS.' }),
    requestCount: z.number().int().meta({ description: 'How many deletion requests exist for this subject.' }),
  })
  .meta({
    id: 'ErasureCheckResult',
    example: {
      found: true,
      erased: true,
      deletionRequestId: 'dr_01JDX4Q2W8E6R7T9Y3U5I1O0PA',
      status: 'SUCCESS',
      requestedAt: '2026-11-20T09:14:03.000Z',
      completedAt: '2026-11-20T09:14:05.120Z',
      erasedAt: '2026-11-20T09:14:05.120Z',
      requestCount: 1,
    },
  });
export type ErasureCheckResult = z.infer<typeof erasureCheckResultSchema>;

export const erasureCheckBatchResultSchema = z
  .object({
    results: z
      .array(erasureCheckResultSchema)
      .meta({ description: 'One result per identifier, in the order they were sent.' }),
  })
  .meta({ id: 'ErasureCheckBatchResult' });
