import type { ManualConfig } from '@shared/integrations/manual';
import { PermanentError, type Driver, type DriverContext, type Outcome } from '../types';
import type { ManualAnswer, ManualTaskPort } from './port';

/** A person answers within days: the task is looked at hourly (an answer brings the check forward at once). */
const RECHECK_MS = 3_600_000;

function portOf(ctx: DriverContext<ManualConfig>): ManualTaskPort {
  if (!ctx.manualTasks) throw new PermanentError('Manual tasks are not available to this process');
  return ctx.manualTasks;
}

/** What an owner's answer means for the integration request: a person's confirmation, never a verification. */
export function answerOutcome(answer: ManualAnswer): Outcome {
  const who = answer.via === 'link' ? 'an owner (task link)' : answer.via === 'api' ? 'the API' : 'a member';
  const evidence = {
    confirmation: 'confirmed by a person' as const,
    answer: answer.answer,
    answeredAt: answer.answeredAt.toISOString(),
    answeredVia: answer.via,
    ...(answer.note ? { note: answer.note } : {}),
    ...(answer.file ? { file: answer.file } : {}),
  };
  if (answer.answer === 'done')
    return { kind: 'success', message: `Done, confirmed by a person through ${who}`, evidence };
  if (answer.answer === 'not_found')
    return {
      kind: 'success',
      message: `Not found: a person confirmed through ${who} that the system holds no data of the subject`,
      evidence,
    };
  return { kind: 'failed', reason: `Cannot be done, said a person through ${who}: ${answer.note ?? ''}`.trim() };
}

export const manualDriver: Driver<ManualConfig> = {
  type: 'MANUAL',
  async: true,
  canCancel: () => true,
  expectedCompletion: 'the days to complete you set',

  async requestDeletion(ctx) {
    const { taskId, mailed } = await portOf(ctx).open(ctx.config);
    return {
      kind: 'accepted',
      trackingId: taskId,
      status: 'PENDING',
      message: `Task opened for ${ctx.config.owners.length} owner(s); ${mailed ? `link mailed to ${mailed}` : 'no email sent (SMTP is not configured)'}`,
      pollAfterMs: RECHECK_MS,
    };
  },

  async checkStatus(ctx) {
    if (!ctx.trackingId) return { kind: 'failed', reason: 'This manual integration request has no task' };
    const answer = await portOf(ctx).answerOf(ctx.trackingId);
    if (!answer)
      return { kind: 'pending', status: 'PENDING', message: 'Waiting for an owner to answer', pollAfterMs: RECHECK_MS };
    return answerOutcome(answer);
  },

  async cancel(ctx) {
    if (ctx.trackingId) await portOf(ctx).revoke(ctx.trackingId);
    return { canceled: true, message: 'The task was withdrawn; its link no longer opens' };
  },

  async testConnection(ctx) {
    return { ok: true, message: `Tasks go to ${ctx.config.owners.join(', ')}` };
  },
};
