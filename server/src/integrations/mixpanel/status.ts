import type { Outcome } from '../types';

/** Mixpanel cancels a task only before it has STARTED. */
export const MIXPANEL_CANCELABLE = ['PENDING', 'STAGING'];

export function mixpanelStatusOutcome(status: string, taskId: string): Outcome {
  switch (status) {
    case 'PENDING':
    case 'STAGING':
      return { kind: 'pending', status: 'PENDING', message: `Mixpanel task ${taskId} is ${status}` };
    case 'STARTED':
      return { kind: 'pending', status: 'PROCESSING', message: `Mixpanel task ${taskId} has STARTED deleting` };
    case 'SUCCESS':
      return {
        kind: 'success',
        message: `Mixpanel task ${taskId} finished: SUCCESS`,
        evidence: { mixpanelTaskId: taskId, mixpanelStatus: status },
      };
    case 'FAILURE':
      return { kind: 'failed', reason: `Mixpanel task ${taskId} reported FAILURE` };
    case 'REVOKED':
      // Revoked at Mixpanel, not by a member here: the data was not deleted.
      return {
        kind: 'failed',
        reason: `Mixpanel task ${taskId} was revoked at Mixpanel: the data was not deleted; retry to ask again`,
      };
    case 'NOT_FOUND':
      return { kind: 'failed', reason: `Mixpanel has no deletion task ${taskId} (NOT_FOUND)` };
    default:
      // UNKNOWN or a status added later: keep checking rather than guess an end.
      return { kind: 'pending', status: 'PROCESSING', message: `Mixpanel task ${taskId} status ${status || '(none)'}` };
  }
}
