import { z } from 'zod';
import { requestSearchFilterSchema } from './dashboard';
import { cancelBody, deletionRequestIdSchema, requireNoteForOther, retryConfigurationSchema } from './deletion-request';

/** How many deletion requests one bulk action may act on (named one by one, or matched by a filter). */
export const BULK_ACTION_MAX = 500;

/** The requests a bulk action acts on: a list of ids, or every request the Requests screen's filter matches. */
const bulkTargetSchema = z
  .object({
    deletionRequestIds: z
      .array(deletionRequestIdSchema)
      .min(1, 'Choose at least one request')
      .max(BULK_ACTION_MAX, `Choose at most ${BULK_ACTION_MAX} requests at a time`)
      .optional()
      .meta({ description: `The requests to act on, at most ${BULK_ACTION_MAX}. Give either this or \`filter\`.` }),
    filter: requestSearchFilterSchema.optional().meta({
      description: `Act on every request this filter matches (the Requests screen's filters); refused when more than ${BULK_ACTION_MAX} match.`,
    }),
  })
  .refine((target) => (target.deletionRequestIds === undefined) !== (target.filter === undefined), {
    path: ['deletionRequestIds'],
    message: 'Give either deletionRequestIds or filter (one of them)',
  });

/** The reason is the single cancel's (`cancelBody`), given once for every request canceled. */
export const bulkCancelInputSchema = bulkTargetSchema.safeExtend(cancelBody).superRefine(requireNoteForOther);
export const bulkRetryInputSchema = bulkTargetSchema.safeExtend({
  configuration: retryConfigurationSchema.default('submitted'),
});

/** What became of one request: acted on, acted on in part (some integrations could not be canceled), or skipped with the reason. */
export const BULK_ITEM_OUTCOMES = ['retried', 'canceled', 'partly_canceled', 'skipped'] as const;

export const bulkActionResultSchema = z
  .object({
    action: z.enum(['retry', 'cancel']),
    matched: z.number().int().meta({ description: 'How many requests the ids or the filter named.' }),
    succeeded: z.number().int().meta({ description: 'How many were retried or canceled (in full or in part).' }),
    skipped: z.number().int().meta({ description: 'How many were left as they were, each with the reason.' }),
    items: z.array(
      z.object({
        deletionRequestId: z.string(),
        outcome: z.enum(BULK_ITEM_OUTCOMES),
        integrationRequestIds: z
          .array(z.string())
          .meta({ description: 'The integration requests the action was applied to.' }),
        reason: z
          .string()
          .nullable()
          .meta({ description: 'Why the request was skipped, or which integrations could not be canceled.' }),
      }),
    ),
    message: z.string().meta({ description: 'What happened, in a sentence.' }),
  })
  .meta({
    id: 'BulkActionResult',
    example: {
      action: 'retry',
      matched: 2,
      succeeded: 1,
      skipped: 1,
      items: [
        {
          deletionRequestId: 'dr_01jdx4q2w8e6r7t9y3u5',
          outcome: 'retried',
          integrationRequestIds: ['ir_01jdx4q2w8e6r7t9y3u6'],
          reason: null,
        },
        {
          deletionRequestId: 'dr_01jdx4q2w8e6r7t9y3u7',
          outcome: 'skipped',
          integrationRequestIds: [],
          reason: 'Nothing to retry: no integration request of this deletion request has failed',
        },
      ],
      message: '1 request retried, 1 skipped',
    },
  });
export type BulkActionResult = z.infer<typeof bulkActionResultSchema>;
export type BulkItemOutcome = (typeof BULK_ITEM_OUTCOMES)[number];
