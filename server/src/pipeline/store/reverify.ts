import { AUDIT_COLUMNS, utc, type AuditRow, type Query } from './sql';
import { storableJson } from '../../db/storable';
import { withDetailsPacked } from '../../services/audit/recorded-exchanges';

export interface Reverification {
  organizationId: string;
  deletionRequestId: string;
  integrationRequestId: string;
  /** Rows, keys, objects or items matching the subject found again; 0 = still deleted. */
  remaining: number;
  /** False when the check itself failed (the reason is in the audit entry). */
  ok: boolean;
  summary: string;
  details: Record<string, unknown>;
}

/**
 * Records one re-verification: `reverifiedAt` (and `reappearedAt` when rows came back) on a
 * SUCCESS integration request, its audit entry, and for reappeared data a request-level
 * `request.reappeared` entry that the notifier turns into a notice. One statement; the status
 * stays SUCCESS (final), a member re-runs the deletion from the request detail.
 * False when the row is no longer SUCCESS or was re-verified meanwhile (another worker).
 */
export async function recordReverification(query: Query, r: Reverification, now: Date): Promise<boolean> {
  const reappeared = r.ok && r.remaining > 0;
  const entries: AuditRow[] = [
    {
      organizationId: r.organizationId,
      deletionRequestId: r.deletionRequestId,
      integrationRequestId: r.integrationRequestId,
      action: 'deletion.reverified',
      outcome: !r.ok ? 'ERROR' : reappeared ? 'REAPPEARED' : 'VERIFIED',
      summary: r.summary,
      details: r.details,
    },
  ];
  if (reappeared) {
    entries.push({
      organizationId: r.organizationId,
      deletionRequestId: r.deletionRequestId,
      integrationRequestId: r.integrationRequestId,
      action: 'request.reappeared',
      outcome: 'REAPPEARED',
      summary: `Deleted data reappeared: ${r.remaining} match(es) found at re-verification`,
      details: { remaining: r.remaining },
    });
  }
  const rows = await query(
    `WITH updated AS (
       UPDATE "IntegrationRequest"
          SET "reverifiedAt" = ${utc('$4')}, "reappearedAt" = CASE WHEN $2 THEN ${utc('$4')} ELSE "reappearedAt" END, "updatedAt" = ${utc('$4')}
        WHERE id = $1 AND status = 'SUCCESS' AND "reverifiedAt" IS NULL
        RETURNING id
     )
     INSERT INTO "AuditLog" (${AUDIT_COLUMNS}, exchanges)
     SELECT e."organizationId", e."deletionRequestId", e."integrationRequestId", 'system', NULL, e.action, e.outcome, e.summary, e.details, ${utc('$4')},
            decode(e.exchanges, 'base64')
       FROM updated, jsonb_to_recordset($3::jsonb) AS e("organizationId" text, "deletionRequestId" text, "integrationRequestId" text, action text, outcome text, summary text, details jsonb, exchanges text)
     RETURNING 1`,
    [
      r.integrationRequestId,
      reappeared,
      // The bulk of the details (the recorded exchanges among it) is stored compressed.
      storableJson(entries.map(withDetailsPacked)),
      now.toISOString(),
    ],
  );
  return rows.length > 0;
}
