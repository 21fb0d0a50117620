import type { Db } from '../../db/client';
import { csvLine } from '../../lib/csv';
import { notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { namesOf, readAuditTrail } from '../audit/audit-entry';
import { maskAuditEntry, requestIdentifierMasker } from '../audit/mask-exchanges';
import { EXPORT_PAGE_SIZE } from './export-requests';

export const AUDIT_CSV_COLUMNS = [
  'id',
  'createdAt',
  'integrationRequestId',
  'integration',
  'actorType',
  'actor',
  'action',
  'outcome',
  'summary',
  'details',
] as const;

/**
 * One request's audit trail, oldest first, as CSV lines: every entry (no 500-entry cap as on
 * screen), paged by the entry id. `details` is the recorded JSON (secrets were redacted when
 * it was written), with every identifier of the request masked in it and in the summary, as
 * the list export masks them. Another organization's request is "not found".
 */
export async function* exportAuditTrailCsv(db: Db, actor: Actor, deletionRequestId: string): AsyncGenerator<string> {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: { workspaceId: true, integrationRequests: { select: { id: true, integrationName: true } } },
  });
  if (!request) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, request.workspaceId);
  const integrationNames = new Map(request.integrationRequests.map((ir) => [ir.id, ir.integrationName]));
  const mask = await requestIdentifierMasker(db, deletionRequestId);
  yield csvLine(AUDIT_CSV_COLUMNS);
  let afterId: bigint | undefined;
  for (;;) {
    // The one read of a request's trail (as behind the API and the detail), page after page.
    const { rows: entries, more } = await readAuditTrail(db, actor.organizationId, deletionRequestId, {
      limit: EXPORT_PAGE_SIZE,
      afterId,
    });
    if (entries.length === 0) return;
    const names = await namesOf(
      db,
      entries.map((e) => e.actorId),
    );
    let chunk = '';
    for (const recorded of entries) {
      const e = maskAuditEntry(recorded, mask);
      chunk += csvLine([
        e.id.toString(),
        e.createdAt,
        e.integrationRequestId,
        e.integrationRequestId ? (integrationNames.get(e.integrationRequestId) ?? null) : null,
        e.actorType,
        e.actorId ? (names.get(e.actorId) ?? e.actorId) : null,
        e.action,
        e.outcome,
        e.summary,
        e.details === null ? null : JSON.stringify(e.details),
      ]);
    }
    yield chunk;
    if (!more) return;
    afterId = entries[entries.length - 1]!.id;
  }
}
