/**
 * The audit actions a step of an integration request writes: its first call, then each status
 * check. Each entry's outcome is the integration request's status after the step, so the entry
 * of the step that ended it says how (SUCCESS, FAILED, ERROR).
 */
export const STEP_AUDIT_ACTIONS = ['deletion.requested', 'deletion.status_checked'];
