import type { z } from 'zod';
import type { requestSearchInputSchema, RequestSearchFilter } from '@shared/schemas/dashboard';
import { hotQuery, selectedColumns, type Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import type { Keyring } from '../../lib/crypto';
import { mayUseWorkspace, type Actor } from '../auth/actor';
import { receiptToConfirmWhere, unfulfilledWhere } from '../deadlines/pending';
import { deletionRequestPage } from '../deletion-requests/list-deletion-requests';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from '../deletion-requests/serialize';
import { decodeDueCursor, decodeKeysetCursor, encodeDueCursor, encodeKeysetCursor } from '../../lib/keyset-cursor';
import { requestIdsMatching, searchHashes } from '../people/matching-requests';
import { withMaskedIdentifier } from './masked-identifier';

const DAY_MS = 86_400_000;

export type RequestSearchInput = z.output<typeof requestSearchInputSchema>;

/**
 * The organization's deletion requests that `filter` matches (the Requests screen's filters,
 * also what a bulk action "on every request matching this filter" acts on). An identifier
 * matches any identifier of a request, as its type compares them (emails without case, phones
 * in E.164): the few matching ids are looked up first through the identifiers' hash index.
 */
export async function requestSearchWhere(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  filter: RequestSearchFilter,
  now = new Date(),
) {
  const where: Prisma.DeletionRequestWhereInput & { AND?: Prisma.DeletionRequestWhereInput[] } = {
    organizationId: actor.organizationId,
  };
  if (filter.workspaceId) where.workspaceId = filter.workspaceId;
  // A token limited to workspaces sees only theirs (the dashboard's sessions have no such limit).
  if (actor.workspaceIds)
    where.workspaceId = filter.workspaceId
      ? mayUseWorkspace(actor, filter.workspaceId)
        ? filter.workspaceId
        : { in: [] }
      : { in: [...actor.workspaceIds] };
  if (filter.statuses?.length) where.status = { in: filter.statuses };
  if (filter.createdByUserId) where.createdByUserId = filter.createdByUserId;
  if (filter.identifier)
    where.id = { in: await requestIdsMatching(db, actor.organizationId, searchHashes(keyring, filter.identifier)) };
  if (filter.createdFrom || filter.createdTo) {
    where.createdAt = {
      ...(filter.createdFrom ? { gte: new Date(filter.createdFrom) } : {}),
      ...(filter.createdTo ? { lte: new Date(filter.createdTo) } : {}),
    };
  }
  if (filter.due === 'unconfirmed') {
    where.AND = [receiptToConfirmWhere];
  } else if (filter.due) {
    const bound = filter.due === 'overdue' ? { lte: now } : { gt: now, lte: new Date(now.getTime() + 7 * DAY_MS) };
    where.AND = [{ dueAt: bound, ...unfulfilledWhere }];
  }
  return where;
}

/**
 * The Requests screen: the organization's deletion requests, newest first, narrowed by
 * workspace, statuses, creation date range, creator and an identifier (any of a request's).
 * The identifier is matched through its keyed hashes, so hashed (retained) requests are found too.
 */
export async function searchDeletionRequests(
  db: Db,
  keyring: Keyring,
  actor: Actor,
  input: RequestSearchInput,
  now = new Date(),
) {
  const byDue = input.sort === 'due';
  // "Nearest deadline first": among receipts still to confirm, the deadline that is near is the
  // confirmation's (ten business days under the CCPA), not the deletion's.
  const deadline = input.filter.due === 'unconfirmed' ? 'receiptConfirmBy' : 'dueAt';
  const { page, nextCursor } =
    !byDue && isUnfiltered(input.filter)
      ? // The screen as it opens and refreshes: the public list's statement, without the ORM's work.
        await deletionRequestPage(
          db,
          { organizationId: actor.organizationId, workspaceIds: actor.workspaceIds },
          { limit: input.limit, cursor: input.cursor ?? undefined },
        )
      : byDue
        ? await deadlinePage(
            db,
            await requestSearchWhere(db, keyring, actor, input.filter, now),
            input.limit,
            input.cursor,
            deadline,
          )
        : await filteredPage(
            db,
            await requestSearchWhere(db, keyring, actor, input.filter, now),
            input.limit,
            input.cursor,
          );
  const { integrationRequests, names } = await pageDetails(db, page);
  return {
    items: page.map((row) => ({
      ...withMaskedIdentifier(
        toDeletionRequestDto({ ...row, integrationRequests: integrationRequests.get(row.id) ?? [] }),
      ),
      workspaceName: names.get(row.workspaceId) ?? '',
      createdByName: row.createdByUserId ? (names.get(row.createdByUserId) ?? null) : null,
    })),
    nextCursor,
  };
}

/** No filter: every request the actor may see. */
const isUnfiltered = (filter: RequestSearchFilter) =>
  !filter.workspaceId &&
  !filter.statuses?.length &&
  !filter.createdByUserId &&
  !filter.identifier &&
  !filter.createdFrom &&
  !filter.createdTo &&
  !filter.due;

/** A page of the requests `where` selects, newest first. */
async function filteredPage(
  db: Db,
  where: Awaited<ReturnType<typeof requestSearchWhere>>,
  limit: number,
  cursor: string | null | undefined,
) {
  const and = [...(where.AND ?? [])];
  if (cursor) {
    const { createdAt, id } = decodeKeysetCursor(cursor);
    // The plain bound lets the index scan start at the cursor (a deep page costs what the first does).
    and.push(
      { createdAt: { lte: createdAt } },
      { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] },
    );
  }
  const rows = await db.deletionRequest.findMany({
    where: and.length ? { ...where, AND: and } : where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    select: deletionRequestSelect,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { page, nextCursor: rows.length > limit && last ? encodeKeysetCursor(last.createdAt, last.id) : null };
}

/** What a deadline no longer asks anything of: fulfilled or closed. */
const FINISHED_STATUSES = ['SUCCESS', 'CANCELED'] as const;
const finishedWhere = { status: { in: [...FINISHED_STATUSES] } } satisfies Prisma.DeletionRequestWhereInput;

/**
 * "Nearest deadline first": the open requests (still owing the subject an answer) by `deadline`,
 * then the finished ones by theirs; a page may end the first part and start the second.
 */
async function deadlinePage(
  db: Db,
  where: Awaited<ReturnType<typeof requestSearchWhere>>,
  limit: number,
  cursor: string | null | undefined,
  deadline: 'dueAt' | 'receiptConfirmBy',
) {
  const position = cursor ? decodeDueCursor(cursor) : null;
  const part = async (status: Prisma.DeletionRequestWhereInput, after: typeof position, take: number) => {
    const and = [...(where.AND ?? []), status];
    if (after) {
      const { dueAt: at, id } = after;
      and.push(
        at
          ? { OR: [{ [deadline]: { gt: at } }, { [deadline]: at, id: { gt: id } }, { [deadline]: null }] }
          : { [deadline]: null, id: { gt: id } },
      );
    }
    return db.deletionRequest.findMany({
      where: { ...where, AND: and },
      orderBy: [{ [deadline]: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
      take,
      select: deletionRequestSelect,
    });
  };
  const rows = position?.finished ? [] : await part(unfulfilledWhere, position, limit + 1);
  if (rows.length <= limit)
    rows.push(...(await part(finishedWhere, position?.finished ? position : null, limit + 1 - rows.length)));
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const finished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);
  return {
    page,
    nextCursor: rows.length > limit && last ? encodeDueCursor(last[deadline], last.id, finished(last.status)) : null,
  };
}

type IntegrationRequestRow = Prisma.IntegrationRequestGetPayload<{ select: typeof integrationRequestSelect }>;

/**
 * What a page of the list shows beside each request: its integration requests (oldest first),
 * its workspace's name and its creator's (name, or email without one). Two prepared statements
 * for the whole page, where the ORM would make one query per relation.
 */
async function pageDetails(db: Db, page: { id: string; workspaceId: string; createdByUserId: string | null }[]) {
  const integrationRequests = new Map<string, IntegrationRequestRow[]>();
  const names = new Map<string, string>();
  if (page.length === 0) return { integrationRequests, names };
  const [details, named] = await Promise.all([
    hotQuery<IntegrationRequestRow & { deletionRequestId: string }>(
      db,
      `SELECT "deletionRequestId", ${selectedColumns(integrationRequestSelect)}
         FROM "IntegrationRequest" WHERE "deletionRequestId" = ANY($1::text[]) ORDER BY "createdAt", id`,
      [page.map((row) => row.id)],
    ),
    hotQuery<{ id: string; name: string }>(
      db,
      `SELECT id, name FROM "Workspace" WHERE id = ANY($1::text[])
       UNION ALL SELECT id, COALESCE(NULLIF(name, ''), email) FROM "User" WHERE id = ANY($2::text[])`,
      [
        [...new Set(page.map((row) => row.workspaceId))],
        [...new Set(page.flatMap((row) => (row.createdByUserId ? [row.createdByUserId] : [])))],
      ],
    ),
  ]);
  for (const { deletionRequestId, ...detail } of details) {
    const list = integrationRequests.get(deletionRequestId);
    if (list) list.push(detail);
    else integrationRequests.set(deletionRequestId, [detail]);
  }
  for (const { id, name } of named) names.set(id, name); // ids are prefixed (ws_, usr_): one map holds both
  return { integrationRequests, names };
}
