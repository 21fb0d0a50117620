export { dbQuery, NOW_UTC, pgQuery, utc, type Query } from '../../db/query';

export interface AuditRow {
  organizationId: string;
  deletionRequestId: string;
  integrationRequestId?: string | null;
  action: string;
  outcome?: string | null;
  summary: string;
  details?: unknown;
}

export const AUDIT_COLUMNS = `"organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId", action, outcome, summary, details, "createdAt"`;
