import { z } from 'zod';

/** Evidence files up to this size are kept (sealed) with a "done" answer. */
export const EVIDENCE_MAX_BYTES = 10 * 1024 * 1024;
/** What the evidence file may be, as its first bytes say (not its name). */
export const EVIDENCE_TYPES_TEXT = 'PDF, PNG, JPEG, CSV or TXT';

export const MANUAL_ANSWERS = ['done', 'not_found', 'cannot'] as const;
export type ManualAnswerKind = (typeof MANUAL_ANSWERS)[number];

export const MANUAL_ANSWER_LABEL: Record<ManualAnswerKind, string> = {
  done: 'Done',
  not_found: 'Not found',
  cannot: 'Cannot',
};

export const manualTaskIdSchema = z
  .string()
  .regex(/^mt_[0-9a-z]{1,40}$/, 'must be a manual task id (mt_…)')
  .meta({ description: "The manual task's id.", example: 'mt_01jdx4q2w8e6r7t9y3u7' });

/** An owner's or member's answer; the evidence file travels base64-encoded in the JSON body. */
const answerFields = z.object({
  answer: z.enum(MANUAL_ANSWERS).meta({
    description:
      '`done` (deleted: say what in `note`), `not_found` (the system holds nothing of the subject) or `cannot` (say why in `note`).',
  }),
  note: z
    .string()
    .trim()
    .max(5_000)
    .optional()
    .meta({ description: 'What was deleted (done), or why it cannot be (cannot).' }),
  evidence: z
    .object({
      fileName: z.string().trim().min(1).max(255),
      // Up to 10 MB once decoded (checked after decoding: 413); the body limit bounds the rest.
      contentBase64: z.string().max(32_000_000),
    })
    .optional()
    .meta({
      description: `Optional with \`done\`: a ${EVIDENCE_TYPES_TEXT} file of up to 10 MB (413 when larger, 415 for another type).`,
    }),
});

export type ManualTaskAnswerInput = z.infer<typeof answerFields>;

/** An answer checked as a whole: a reason with "cannot", a file only with "done". */
function checkAnswer(input: ManualTaskAnswerInput, ctx: z.RefinementCtx) {
  if (input.answer === 'cannot' && !input.note)
    ctx.addIssue({ code: 'custom', path: ['note'], message: 'Say why it cannot be done' });
  if (input.evidence && input.answer !== 'done')
    ctx.addIssue({ code: 'custom', path: ['evidence'], message: 'An evidence file goes with a "done" answer only' });
}

/** The answer by a task's id (members, the REST API). */
export const answerByIdSchema = answerFields.extend({ id: manualTaskIdSchema }).superRefine(checkAnswer);
/** The answer through a task link (the owner's page). */
export const answerByLinkSchema = answerFields.extend({ token: z.string().min(1).max(200) }).superRefine(checkAnswer);

export const taskTokenInputSchema = z.object({ token: z.string().min(1).max(200) });

/** An open task, as the REST list and the dashboard show it (the identifier masked). */
export const manualTaskSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  workspaceId: z.string(),
  deletionRequestId: z.string(),
  integrationRequestId: z.string(),
  integrationName: z.string(),
  owners: z.array(z.string()),
  maskedIdentifier: z.string().nullable(),
  createdAt: z.string(),
  dueAt: z.string(),
  /** The request's legal deadline. */
  requestDueAt: z.string().nullable(),
  /** The task is due after the request's legal deadline, or is still open past it. */
  lateForDeadline: z.boolean(),
});
export type ManualTask = z.infer<typeof manualTaskSchema>;

export const manualTaskListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50).meta({ description: 'Page size (1-100).' }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Opaque cursor from the previous page\'s Link rel="next" header.' }),
});

export const manualTaskAnswerResultSchema = z.object({
  id: z.string(),
  answer: z.enum(MANUAL_ANSWERS),
  answeredAt: z.string(),
  integrationRequestId: z.string(),
  deletionRequestId: z.string(),
});

/** What the task page shows an owner: no request id, identifiers masked until revealed. */
export const taskPageSchema = z.object({
  organizationName: z.string(),
  integrationName: z.string(),
  instructions: z.string(),
  dueAt: z.string(),
  identifiers: z.array(
    z.object({ id: z.string(), type: z.string().nullable(), primary: z.boolean(), masked: z.string() }),
  ),
});
export type TaskPage = z.infer<typeof taskPageSchema>;
