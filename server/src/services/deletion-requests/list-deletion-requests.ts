import { hotQuery, type Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../lib/keyset-cursor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from './serialize';

export interface ListOptions {
  limit: number;
  cursor?: string;
  fetchIntegrationRequests: boolean;
  fetchHashed: boolean;
}

export interface ListScope {
  organizationId: string;
  workspaceId?: string;
  /** Any of these workspaces (a token limited to workspaces). */
  workspaceIds?: readonly string[];
  createdByUserId?: string;
}

type DeletionRequestRow = Prisma.DeletionRequestGetPayload<{ select: typeof deletionRequestSelect }>;
type IntegrationRequestRow = Prisma.IntegrationRequestGetPayload<{ select: typeof integrationRequestSelect }> & {
  deletionRequestId: string;
};

/**
 * One page of the scope's requests, newest first, keyset-paginated on (createdAt, id) so a deep
 * page costs what the first does: the row comparison is an index range on (scope, createdAt
 * DESC, id DESC). Hand-written SQL: the busiest read of the public API and of the dashboard's
 * Requests screen, where the ORM's per-query work showed in the benchmark.
 */
export async function deletionRequestPage(
  db: Db,
  scope: ListScope,
  options: { limit: number; cursor?: string },
): Promise<{ page: DeletionRequestRow[]; nextCursor: string | null }> {
  const values: unknown[] = [options.limit + 1, scope.organizationId];
  const conditions = ['"organizationId" = $2'];
  if (scope.workspaceId) conditions.push(`"workspaceId" = $${values.push(scope.workspaceId)}`);
  if (scope.workspaceIds) conditions.push(`"workspaceId" = ANY($${values.push(scope.workspaceIds)}::text[])`);
  if (scope.createdByUserId) conditions.push(`"createdByUserId" = $${values.push(scope.createdByUserId)}`);
  if (options.cursor) {
    const { createdAt, id } = decodeKeysetCursor(options.cursor);
    const at = values.push(createdAt.toISOString());
    conditions.push(`("createdAt", id) < ($${at}::timestamptz AT TIME ZONE 'UTC', $${values.push(id)})`);
  }
  const rows = await hotQuery<DeletionRequestRow>(
    db,
    `SELECT id, "organizationId", "workspaceId", identifier, hashed, status::text AS status, "statusReason", channel::text AS channel,
            "createdByUserId", "createdAt", "receivedAt", "updatedAt", "completedAt", regulation, "dueAt", "dueExtendedAt",
            "receiptConfirmBy", "receiptConfirmedAt", "cancelReason", "cancelNote"
       FROM "DeletionRequest" WHERE ${conditions.join(' AND ')}
      ORDER BY "createdAt" DESC, id DESC LIMIT $1`,
    values,
  );
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > options.limit && last ? encodeKeysetCursor(last.createdAt, last.id) : null };
}

/**
 * The public API's lists: a page of the scope's requests (`deletionRequestPage`), with their
 * integration requests in one extra query per page, never one per item.
 */
export async function listDeletionRequests(db: Db, scope: ListScope, options: ListOptions) {
  const { page, nextCursor } = await deletionRequestPage(db, scope, options);
  if (options.fetchIntegrationRequests && page.length > 0) {
    const children = await hotQuery<IntegrationRequestRow>(
      db,
      `SELECT id, "deletionRequestId", "integrationId", "integrationName", "integrationType"::text AS "integrationType", status::text AS status,
              attempts, "trackingId", "lastError", "nextAttemptAt", "createdAt", "updatedAt", "completedAt"
         FROM "IntegrationRequest" WHERE "deletionRequestId" = ANY($1::text[])
        ORDER BY "createdAt"`,
      [page.map((r) => r.id)],
    );
    const byParent = new Map<string, IntegrationRequestRow[]>();
    for (const child of children) {
      const siblings = byParent.get(child.deletionRequestId);
      if (siblings) siblings.push(child);
      else byParent.set(child.deletionRequestId, [child]);
    }
    return {
      items: page.map((row) =>
        toDeletionRequestDto(
          { ...row, integrationRequests: byParent.get(row.id) ?? [] },
          { fetchHashed: options.fetchHashed },
        ),
      ),
      nextCursor,
    };
  }
  return { items: page.map((row) => toDeletionRequestDto(row, { fetchHashed: options.fetchHashed })), nextCursor };
}
