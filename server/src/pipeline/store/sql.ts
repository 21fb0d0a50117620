export { dbQuery, NOW_UTC, pgQuery, utc, type Query } from '../../db/query';

export interface AuditRow {
  organizationId: string;
  deletionRequestId: string;
  integrationRequestId?: string | null;
  action: string;
  outcome?: string | null;
  summary: string;
  details?: unknown;
  /**
   * A status poll: when the integration request's latest entry says the same (action, outcome,
   * summary and kind of result), that entry counts one more repeat instead of a new one being added.
   */
  foldRepeats?: boolean;
}

export const AUDIT_COLUMNS = `"organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId", action, outcome, summary, details, "createdAt"`;
