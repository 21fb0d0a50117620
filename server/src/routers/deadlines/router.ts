import { z } from 'zod';
import {
  confirmReceiptInputSchema,
  correctReceiptInputSchema,
  extendDeadlineInputSchema,
  regulationNameSchema,
  regulationPolicyInputSchema,
  timeZoneSchema,
} from '@shared/deadlines';
import { router } from '../../trpc/init';
import { adminProcedure, memberProcedure } from '../../trpc/procedures';
import { confirmReceipt, correctReceiptConfirmation } from '../../pipeline/commands/confirm-receipt';
import { extendDeadline } from '../../pipeline/commands/extend-deadline';
import {
  createRegulationPolicy,
  deleteRegulationPolicy,
  listRegulations,
  setDefaultRegulation,
  setOrganizationTimeZone,
  setWorkspaceRegulation,
} from '../../services/deadlines/regulations';
import { idempotencyRequestHeaders, idempotencyResponseHeaders, TAG } from '../deletion-requests/shared-meta';
import { idempotentCall } from '../idempotent-call';
import { restMeta } from '../rest-meta';

const extendOutput = z.object({
  deletionRequestId: z.string(),
  regulation: z.string(),
  dueAt: z.string(),
  dueExtendedAt: z.string(),
  dueExtensionReason: z.string(),
});

const confirmReceiptOutput = z.object({
  deletionRequestId: z.string(),
  receiptConfirmBy: z
    .string()
    .nullable()
    .meta({ description: 'When it was due (CCPA: 10 business days after receipt); null when not required.' }),
  receiptConfirmedAt: z.string(),
  onTime: z
    .boolean()
    .meta({ description: 'Whether it was recorded as sent by the day it was due (true when not required).' }),
});

const correctReceiptOutput = confirmReceiptOutput.extend({
  receiptConfirmedAt: z
    .string()
    .nullable()
    .meta({ description: 'The corrected time; null: withdrawn, still to confirm.' }),
  previousConfirmedAt: z.string(),
  onTime: z
    .boolean()
    .nullable()
    .meta({ description: 'Whether the corrected time was by the day it was due; null when withdrawn.' }),
});

export const deadlinesRouter = router({
  /** Built-in regulations, the organization's custom policies, its default and each workspace's choice. */
  regulations: memberProcedure.query(({ ctx }) => listRegulations(ctx.prisma, ctx.actor)),
  createPolicy: adminProcedure
    .input(regulationPolicyInputSchema)
    .mutation(({ ctx, input }) => createRegulationPolicy(ctx.prisma, ctx.actor, input)),
  deletePolicy: adminProcedure
    .input(z.object({ policyId: z.string().max(64) }))
    .mutation(({ ctx, input }) => deleteRegulationPolicy(ctx.prisma, ctx.actor, input.policyId)),
  setDefault: adminProcedure
    .input(z.object({ regulation: regulationNameSchema }))
    .mutation(({ ctx, input }) => setDefaultRegulation(ctx.prisma, ctx.actor, input.regulation)),
  /** The IANA time zone whose calendar days new deadlines count; anything else is a 400 naming `timeZone`. */
  setTimeZone: adminProcedure
    .input(z.object({ timeZone: timeZoneSchema }))
    .mutation(({ ctx, input }) => setOrganizationTimeZone(ctx.prisma, ctx.actor, input.timeZone)),
  /** null: the workspace follows the organization's default. */
  setWorkspaceRegulation: adminProcedure
    .input(z.object({ workspaceId: z.string().max(64), regulation: regulationNameSchema.nullable() }))
    .mutation(({ ctx, input }) => setWorkspaceRegulation(ctx.prisma, ctx.actor, input)),
  /** Extends the legal deadline once, with the reason given to the subject; audited. */
  extend: memberProcedure
    .meta(
      restMeta({
        method: 'POST',
        path: '/deletion-requests/{deletionRequestId}/extend-deadline',
        operationId: 'extendDeletionRequestDeadline',
        tag: TAG,
        scope: 'requests:write',
        summary: "Extend a deletion request's legal deadline",
        description:
          'Once per request: GDPR by two further months, CCPA by 45 days, a custom policy by its extension days, counted from receipt. The reason is recorded in the audit trail. Send an `Idempotency-Key` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.',
        requestHeaders: idempotencyRequestHeaders,
        responseHeaders: idempotencyResponseHeaders,
        successDescription: 'The new deadline, when it was extended and why.',
        badRequestExample: { path: ['reason'], message: 'Too small: expected string to have >=10 characters' },
        errors: {
          400: 'A missing or too short reason, or a malformed id.',
          404: "No deletion request with this id in the token's organization.",
          409: 'The deadline was already extended or has passed, the request has ended (SUCCESS or CANCELED), or its regulation allows no extension; also while an earlier call with the same Idempotency-Key is still running.',
          422: 'This Idempotency-Key was already used with a different request.',
        },
      }),
    )
    .input(extendDeadlineInputSchema)
    .output(extendOutput)
    .mutation(async ({ ctx, input }) => {
      return idempotentCall(ctx, 'extendDeadline', input, () => extendDeadline(ctx.prisma, ctx.actor, input));
    }),
  /** Records that receipt was confirmed to the subject (CCPA: within 10 business days); audited. */
  confirmReceipt: memberProcedure
    .meta(
      restMeta({
        method: 'POST',
        path: '/deletion-requests/{deletionRequestId}/confirm-receipt',
        operationId: 'confirmDeletionRequestReceipt',
        tag: TAG,
        scope: 'requests:write',
        summary: 'Record that receipt of a deletion request was confirmed to the subject',
        description:
          'CCPA asks a business to confirm receipt of a request to delete within 10 business days (`receiptConfirmBy` on the request); any request may record it. Once per request, with when it was sent (default: now) and how (`note`), both in the audit trail. Send an `Idempotency-Key` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.',
        requestHeaders: idempotencyRequestHeaders,
        responseHeaders: idempotencyResponseHeaders,
        successDescription: 'When it was due and when it was sent.',
        badRequestExample: {
          path: ['confirmedAt'],
          message: 'Give a date (2026-11-20) or a date and time with its offset (2026-11-20T09:14:03Z)',
        },
        errors: {
          400: 'A malformed id, a `confirmedAt` in the future, before the request was received or not a date, or a note over 500 characters.',
          404: "No deletion request with this id in the token's organization.",
          409: 'Receipt was already confirmed; also while an earlier call with the same Idempotency-Key is still running.',
          422: 'This Idempotency-Key was already used with a different request.',
        },
      }),
    )
    .input(confirmReceiptInputSchema)
    .output(confirmReceiptOutput)
    .mutation(async ({ ctx, input }) => {
      return idempotentCall(ctx, 'confirmReceipt', input, () => confirmReceipt(ctx.prisma, ctx.actor, input));
    }),
  /** Corrects (or withdraws) a recorded confirmation of receipt, with a reason; admins only; audited. */
  correctReceiptConfirmation: adminProcedure
    .meta(
      restMeta({
        method: 'POST',
        path: '/deletion-requests/{deletionRequestId}/correct-receipt-confirmation',
        operationId: 'correctDeletionRequestReceiptConfirmation',
        tag: TAG,
        scope: 'requests:write',
        summary: 'Correct a recorded confirmation of receipt',
        description:
          "For a confirmation recorded with the wrong time, or on the wrong request: `confirmedAt` is when it was really sent, or null when it was not (the receipt is then still to confirm, and the request is listed among those again). The reason, and the record before and after, are kept in the audit trail; the first record's entry stays as it was. Owners and admins only. Send an `Idempotency-Key` header to make retries safe: the same key with the same request answers the first answer again; with another request it is a 422.",
        requestHeaders: idempotencyRequestHeaders,
        responseHeaders: idempotencyResponseHeaders,
        successDescription: 'The record before and after the correction.',
        badRequestExample: { path: ['reason'], message: 'Say why the record is corrected' },
        errors: {
          400: 'A malformed id, a `confirmedAt` in the future, before the request was received or not a date, or a missing or over-long reason.',
          403: 'The token belongs to a member: corrections take an owner or an admin.',
          404: "No deletion request with this id in the token's organization.",
          409: 'No confirmation is recorded for the request, or it is already recorded with this time; also while an earlier call with the same Idempotency-Key is still running.',
          422: 'This Idempotency-Key was already used with a different request.',
        },
      }),
    )
    .input(correctReceiptInputSchema)
    .output(correctReceiptOutput)
    .mutation(async ({ ctx, input }) => {
      return idempotentCall(ctx, 'correctReceiptConfirmation', input, () =>
        correctReceiptConfirmation(ctx.prisma, ctx.actor, input),
      );
    }),
});
