import type { z } from 'zod';
import type { requestSearchInputSchema } from '@shared/schemas/dashboard';
import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import type { Actor } from '../auth/actor';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from '../deletion-requests/serialize';
import { decodeKeysetCursor, encodeKeysetCursor } from './cursor';
import { withMaskedIdentifier } from './masked-identifier';

export type RequestSearchInput = z.output<typeof requestSearchInputSchema>;

/**
 * The Requests screen: the organization's deletion requests, newest first, narrowed by
 * workspace, statuses, creation date range, creator and an exact identifier. The identifier
 * is matched through its keyed hash, so hashed (retained) requests are found too.
 */
export async function searchDeletionRequests(db: Db, keyring: Keyring, actor: Actor, input: RequestSearchInput) {
  const { filter } = input;
  const where: Prisma.DeletionRequestWhereInput = { organizationId: actor.organizationId };
  if (filter.workspaceId) where.workspaceId = filter.workspaceId;
  if (filter.statuses?.length) where.status = { in: filter.statuses };
  if (filter.createdByUserId) where.createdByUserId = filter.createdByUserId;
  if (filter.identifier) where.identifierHmac = identifierHmac(keyring, filter.identifier);
  if (filter.createdFrom || filter.createdTo) {
    where.createdAt = {
      ...(filter.createdFrom ? { gte: new Date(filter.createdFrom) } : {}),
      ...(filter.createdTo ? { lte: new Date(filter.createdTo) } : {}),
    };
  }
  if (input.cursor) {
    const { createdAt, id } = decodeKeysetCursor(input.cursor);
    // The plain bound lets the index scan start at the cursor (a deep page costs what the first does).
    where.AND = [{ createdAt: { lte: createdAt } }, { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] }];
  }
  const rows = await db.deletionRequest.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: input.limit + 1,
    select: {
      ...deletionRequestSelect,
      workspace: { select: { name: true } },
      createdBy: { select: { name: true, email: true } },
      integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' } },
    },
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ workspace, createdBy, ...row }) => ({
      ...withMaskedIdentifier(toDeletionRequestDto(row)),
      workspaceName: workspace.name,
      createdByName: createdBy ? createdBy.name || createdBy.email : null,
    })),
    nextCursor: rows.length > input.limit && last ? encodeKeysetCursor(last.createdAt, last.id) : null,
  };
}
