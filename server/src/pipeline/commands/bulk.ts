import { BULK_ACTION_MAX, type BulkActionResult, type BulkItemOutcome } from '@shared/schemas/bulk-actions';
import type { RequestSearchFilter } from '@shared/schemas/dashboard';
import type { RetryConfiguration } from '@shared/schemas/deletion-request';
import { AppError } from '../../lib/errors';
import type { AccountDeps } from '../../services/accounts/accounts';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { recordAudit } from '../../services/audit/record-audit';
import { requestSearchWhere } from '../../services/dashboard/search-deletion-requests';
import { getWorkspace } from '../../services/workspaces/workspaces';
import { cancelDeletionRequest, type CancelReasonInput } from './cancel';
import { retryDeletionRequest } from './retry';

export type BulkTarget =
  | { deletionRequestIds: string[]; filter?: undefined }
  | { filter: RequestSearchFilter; deletionRequestIds?: undefined };
type BulkDeps = AccountDeps;
type Item = BulkActionResult['items'][number];

/** Requests acted on side by side: a cancel may wait on a destination's answer, the others need not wait behind it. */
const CONCURRENCY = 4;

/** The requests acted on, in order, and the workspace of each (for the audit entry's scope). */
interface Resolved {
  ids: string[];
  workspaceOf: Map<string, string>;
}

/**
 * The requests a bulk action acts on, checked once for all: every id must be one of the
 * organization's requests (otherwise nothing is done: 404), in a workspace the actor may act on
 * (403); a filter may match at most BULK_ACTION_MAX requests (409 with the count).
 */
async function resolveTarget(deps: BulkDeps, actor: Actor, target: BulkTarget): Promise<Resolved> {
  if (target.deletionRequestIds) {
    const ids = [...new Set(target.deletionRequestIds)];
    const rows = await deps.prisma.deletionRequest.findMany({
      where: { id: { in: ids }, organizationId: actor.organizationId },
      select: { id: true, workspaceId: true },
    });
    const missing = ids.length - rows.length;
    if (missing > 0)
      throw new AppError(
        'NOT_FOUND',
        `${missing} of the ${ids.length} deletion requests were not found in this organization; nothing was done`,
      );
    for (const row of rows) assertWorkspaceAllowed(actor, row.workspaceId);
    return { ids, workspaceOf: new Map(rows.map((row) => [row.id, row.workspaceId])) };
  }
  const where = await filterWhere(deps, actor, target.filter);
  const rows = await deps.prisma.deletionRequest.findMany({
    where,
    select: { id: true, workspaceId: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: BULK_ACTION_MAX + 1,
  });
  if (rows.length > BULK_ACTION_MAX) {
    throw new AppError(
      'CONFLICT',
      `More than ${BULK_ACTION_MAX} requests match this filter; a bulk action takes at most ${BULK_ACTION_MAX} at a time. Narrow the filter.`,
    );
  }
  return { ids: rows.map((row) => row.id), workspaceOf: new Map(rows.map((row) => [row.id, row.workspaceId])) };
}

/** What a filter matches: a workspace it names must be the organization's (404) and one the actor may act on (403); a token limited to workspaces reaches only those. */
async function filterWhere(deps: BulkDeps, actor: Actor, filter: RequestSearchFilter) {
  if (filter.workspaceId) {
    await getWorkspace(deps.prisma, actor, filter.workspaceId);
    assertWorkspaceAllowed(actor, filter.workspaceId);
  }
  const where = await requestSearchWhere(deps.prisma, deps.keyring, actor, filter);
  if (actor.workspaceIds && !filter.workspaceId) where.workspaceId = { in: [...actor.workspaceIds] };
  return where;
}

/** How many requests `filter` matches, counted up to one more than a bulk action may take. */
export async function countBulkTarget(deps: BulkDeps, actor: Actor, filter: RequestSearchFilter) {
  const where = await filterWhere(deps, actor, filter);
  const count = await deps.prisma.deletionRequest.count({ where, take: BULK_ACTION_MAX + 1 });
  return { count: Math.min(count, BULK_ACTION_MAX), more: count > BULK_ACTION_MAX, max: BULK_ACTION_MAX };
}

/** Runs `act` on every id, a few at a time; each outcome is kept in the order of the ids. */
async function eachRequest(ids: string[], act: (id: string) => Promise<Item>): Promise<Item[]> {
  const items: Item[] = new Array(ids.length);
  let next = 0;
  // A fault in one lane stops the others from taking more, and the run ends with its error once
  // the actions already under way have finished: none is acted on after the answer has gone out.
  let failed = false;
  const lane = async () => {
    try {
      for (let index = next++; index < ids.length && !failed; index = next++) items[index] = await act(ids[index]!);
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, lane));
  const fault = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (fault) throw fault.reason;
  return items;
}

/** A refusal of the single action becomes the item's reason; anything else is a fault of the service and stops the run. */
function skipped(deletionRequestId: string, error: unknown): Item {
  if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'NOT_FOUND')) {
    return { deletionRequestId, outcome: 'skipped', integrationRequestIds: [], reason: error.message };
  }
  throw error;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One audit entry for the bulk action as a whole; each request's own entries are recorded by the
 * single action. When every request is in one workspace the entry names it (`details.workspaceId`,
 * which the audit log's workspace filter reads, as for other workspace entries); requests of
 * several workspaces keep it at the organization, and its summary says how many workspaces.
 */
async function finish(
  deps: BulkDeps,
  actor: Actor,
  action: 'retry' | 'cancel',
  target: BulkTarget,
  resolved: Resolved,
  items: Item[],
  extra: Record<string, string> = {},
) {
  const count = (...outcomes: BulkItemOutcome[]) => items.filter((item) => outcomes.includes(item.outcome)).length;
  const succeeded = count('retried', 'canceled', 'partly_canceled');
  const skippedCount = count('skipped');
  const verb = action === 'retry' ? 'retried' : 'canceled';
  const partly = count('partly_canceled');
  const message =
    items.length === 0
      ? 'No request matched'
      : `${plural(succeeded, 'request')} ${verb}` +
        (partly ? ` (${partly} in part)` : '') +
        (skippedCount ? `, ${skippedCount} skipped` : '');
  // The filter is recorded without the identifier it may search for (personal data stays in its place).
  const { identifier, ...filter } = target.filter ?? {};
  const workspaceIds = [...new Set(resolved.ids.map((id) => resolved.workspaceOf.get(id)!))].sort();
  const scope =
    workspaceIds.length === 1
      ? { workspaceId: workspaceIds[0] }
      : { workspaceIds, workspaceCount: workspaceIds.length };
  const across = workspaceIds.length > 1 ? ` across ${workspaceIds.length} workspaces` : '';
  // A filter that matched nothing changed nothing: there is nothing to audit.
  if (items.length > 0) {
    await recordAudit(deps.prisma, actor, {
      organizationId: actor.organizationId,
      action: `request.bulk_${action}`,
      summary: `Bulk ${action} of ${plural(items.length, 'request')}${across}: ${message}`,
      details: JSON.parse(
        JSON.stringify({
          ...scope,
          ...(target.filter ? { filter, identifierSearch: identifier !== undefined } : {}),
          ...extra,
          items: items.map((item) => ({
            deletionRequestId: item.deletionRequestId,
            outcome: item.outcome,
            reason: item.reason,
          })),
        }),
      ),
    });
  }
  return { action, matched: items.length, succeeded, skipped: skippedCount, items, message };
}

/** Retries the failed integrations of every request named (or matched); a request with nothing failed is skipped with the reason. */
export async function bulkRetry(
  deps: BulkDeps,
  actor: Actor,
  target: BulkTarget,
  configuration: RetryConfiguration = 'submitted',
): Promise<BulkActionResult> {
  const resolved = await resolveTarget(deps, actor, target);
  const items = await eachRequest(resolved.ids, async (id) => {
    try {
      const { retried } = await retryDeletionRequest(deps.prisma, actor, id, { configuration });
      return { deletionRequestId: id, outcome: 'retried', integrationRequestIds: retried, reason: null };
    } catch (error) {
      return skipped(id, error);
    }
  });
  return finish(deps, actor, 'retry', target, resolved, items, { configuration });
}

/** Cancels the unfinished integrations of every request named (or matched); a finished request is skipped with the reason. */
export async function bulkCancel(
  deps: BulkDeps,
  actor: Actor,
  target: BulkTarget,
  why: CancelReasonInput = {},
): Promise<BulkActionResult> {
  const resolved = await resolveTarget(deps, actor, target);
  const items = await eachRequest(resolved.ids, async (id): Promise<Item> => {
    try {
      const { canceled, refused } = await cancelDeletionRequest(deps, actor, id, why);
      const reason = refused.length ? refused.map((r) => r.reason).join('; ') : null;
      if (canceled.length === 0)
        return { deletionRequestId: id, outcome: 'skipped', integrationRequestIds: [], reason };
      return {
        deletionRequestId: id,
        outcome: refused.length ? 'partly_canceled' : 'canceled',
        integrationRequestIds: canceled,
        reason,
      };
    } catch (error) {
      return skipped(id, error);
    }
  });
  return finish(deps, actor, 'cancel', target, resolved, items);
}
