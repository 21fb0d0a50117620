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

/**
 * The settings of a transaction of the claim or the step finisher: their statements keep one
 * generic plan per connection (planned for every claim or batch, they took longer to plan than to
 * run), and that plan looks rows up by index even when it was made on a new database's nearly
 * empty tables, where reading a whole table looks cheapest: kept for the connection's life, such a
 * plan would read every request and the whole audit log on each claim and batch while an import
 * fills them (see cached-plans.test.ts). Two statements.
 */
export const KEPT_PLANS = `SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL enable_seqscan = off`;

export const AUDIT_COLUMNS = `"organizationId", "deletionRequestId", "integrationRequestId", "actorType", "actorId", action, outcome, summary, details, "createdAt"`;

/**
 * The key of a stored configuration snapshot (`ConfigSnapshot.id`): SHA-256 of the organization's
 * id, a space and the configuration's jsonb text, which is the same for equal configurations
 * whatever their keys' order. The migration that introduced the table computed the same.
 */
export const configSnapshotKey = (organizationId: string, config: string) =>
  `sha256(convert_to(${organizationId} || ' ' || (${config})::text, 'UTF8'))`;

/**
 * A CTE body that stores each configuration of `rows` (a FROM list whose columns give the
 * organization's id and the configuration as jsonb) once, unless it is stored already.
 */
export const storeConfigSnapshots = (from: string, organizationId: string, config: string) =>
  `INSERT INTO "ConfigSnapshot" (id, "organizationId", config)
   SELECT DISTINCT ON (key) key, org, config FROM (
     SELECT ${configSnapshotKey(organizationId, config)} AS key, ${organizationId} AS org, (${config}) AS config FROM ${from}
   ) s
   ON CONFLICT (id) DO NOTHING`;
