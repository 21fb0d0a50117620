import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { AppError } from '../../lib/errors';
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
  createdByUserId?: string;
}

export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new AppError('BAD_REQUEST', 'Invalid cursor');
  return { createdAt, id };
}

/**
 * Newest first, keyset-paginated on (createdAt, id) so a deep page costs what the first
 * does. Integration requests come in one extra query per page, never one per item.
 */
export async function listDeletionRequests(db: Db, scope: ListScope, options: ListOptions) {
  const where: Prisma.DeletionRequestWhereInput = { ...scope };
  if (options.cursor) {
    const { createdAt, id } = decodeCursor(options.cursor);
    // The plain bound lets PostgreSQL start the index scan at the cursor: without it the OR
    // is only a filter, and a deep page reads every row before it.
    where.createdAt = { lte: createdAt };
    where.OR = [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }];
  }
  const rows = await db.deletionRequest.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
    select: {
      ...deletionRequestSelect,
      ...(options.fetchIntegrationRequests
        ? { integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' as const } } }
        : {}),
    },
  });
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > options.limit && last ? encodeCursor(last.createdAt, last.id) : null;
  return { items: page.map((row) => toDeletionRequestDto(row, { fetchHashed: options.fetchHashed })), nextCursor };
}
