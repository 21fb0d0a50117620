import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { csvLine } from '../../lib/csv';
import type { Actor } from '../auth/actor';
import { searchDeletionRequests, type RequestSearchInput } from '../dashboard/search-deletion-requests';

/** Rows per database page: large enough for few round trips, small enough that memory stays flat. */
export const EXPORT_PAGE_SIZE = 500;

export const REQUEST_CSV_COLUMNS = [
  'id',
  'workspace',
  'workspaceId',
  'maskedIdentifier',
  'status',
  'statusReason',
  'regulation',
  'dueAt',
  'channel',
  'createdBy',
  'createdAt',
  'completedAt',
  'integrations',
  'receivedAt',
  'receiptConfirmBy',
  'receiptConfirmedAt',
  'cancelReason',
  'cancelNote',
] as const;

/**
 * The Requests screen's list (same filters, same order) as CSV lines, read page by page with
 * the list's keyset cursor: one page in memory at a time, whatever the number of rows.
 * `integrations` is "name: STATUS" per integration request, separated by "; "; the columns after
 * it came later (appended, so that readers of the first ones by position keep working). Identifiers are
 * masked as on screen (`j***@example.com`): a bulk export must not bypass the audited reveal.
 */
export async function* exportRequestsCsv(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  input: Pick<RequestSearchInput, 'filter' | 'sort'>,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<string> {
  // The header line leaves with the first page: a first query that fails then fails the
  // download before anything is sent (a clear error, not a 200 cut short).
  let header = csvLine(REQUEST_CSV_COLUMNS);
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof searchDeletionRequests>> = await searchDeletionRequests(db, keyring, actor, {
      ...input,
      limit: pageSize,
      cursor,
    });
    let chunk = header;
    header = '';
    for (const r of page.items) {
      chunk += csvLine([
        r.id,
        r.workspaceName,
        r.workspaceId,
        r.maskedIdentifier,
        r.status,
        r.statusReason,
        r.regulation,
        r.dueAt,
        r.channel,
        r.createdByName,
        r.createdAt,
        r.completedAt,
        (r.integrationRequests ?? []).map((ir) => `${ir.name}: ${ir.status}`).join('; '),
        r.receivedAt,
        r.receiptConfirmBy,
        r.receiptConfirmedAt,
        r.cancelReason,
        r.cancelNote,
      ]);
    }
    if (chunk) yield chunk;
    cursor = page.nextCursor;
  } while (cursor);
}
