import type { Db } from '../../db/client';
import { decodeBigintCursor } from '../../lib/keyset-cursor';
import type { Actor } from '../auth/actor';
import { auditEntrySelect, toAuditEntryDto } from './audit-entry';
import { namesOf } from './get-deletion-request-detail';

/** The organization's audit log, newest first; the cursor is the last entry's id. */
export async function listAuditLog(db: Db, actor: Actor, input: { limit: number; cursor?: string | null }) {
  const before = input.cursor ? decodeBigintCursor(input.cursor) : undefined;
  const rows = await db.auditLog.findMany({
    where: { organizationId: actor.organizationId, ...(before !== undefined ? { id: { lt: before } } : {}) },
    orderBy: { id: 'desc' },
    take: input.limit + 1,
    select: auditEntrySelect,
  });
  const page = rows.slice(0, input.limit);
  const actorNames = await namesOf(db, page.map((row) => row.actorId));
  const last = page[page.length - 1];
  return {
    items: page.map((row) => toAuditEntryDto(row, actorNames)),
    nextCursor: rows.length > input.limit && last ? last.id.toString() : null,
  };
}
