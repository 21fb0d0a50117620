import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { recordedDetails } from './recorded-exchanges';

export const auditEntrySelect = {
  id: true,
  deletionRequestId: true,
  integrationRequestId: true,
  actorType: true,
  actorId: true,
  action: true,
  outcome: true,
  summary: true,
  details: true,
  exchanges: true,
  createdAt: true,
  repeatCount: true,
  lastRepeatedAt: true,
} satisfies Prisma.AuditLogSelect;

type StoredAuditRow = Prisma.AuditLogGetPayload<{ select: typeof auditEntrySelect }>;
type AuditRow = Omit<StoredAuditRow, 'exchanges'>;

/** A stored entry as it was recorded: its exchanges, kept apart compressed, back in its details. */
export function recordedEntry({ exchanges, ...row }: StoredAuditRow): AuditRow {
  return { ...row, details: recordedDetails(row.details, exchanges) };
}

/** JSON-safe audit entry: the bigint id becomes a string, dates ISO strings. */
export function toAuditEntryDto(row: AuditRow, actorNames: Map<string, string>) {
  return {
    id: row.id.toString(),
    deletionRequestId: row.deletionRequestId,
    integrationRequestId: row.integrationRequestId,
    actorType: row.actorType,
    actorId: row.actorId,
    actorName: row.actorId ? (actorNames.get(row.actorId) ?? null) : null,
    action: row.action,
    outcome: row.outcome,
    summary: row.summary,
    details: (row.details ?? null) as Prisma.JsonValue,
    createdAt: row.createdAt.toISOString(),
    repeatCount: row.repeatCount,
    lastRepeatedAt: row.lastRepeatedAt?.toISOString() ?? null,
  };
}

/**
 * One page of a request's audit trail, oldest first, keyset-paginated on the entry id
 * (`afterId` = the last id of the previous page): the one read behind the public API's trail
 * and the dashboard's request detail. `more` says whether entries follow the page.
 */
export async function readAuditTrail(
  db: Db,
  organizationId: string,
  deletionRequestId: string,
  page: { limit: number; afterId?: bigint },
) {
  const rows = await db.auditLog.findMany({
    where: { organizationId, deletionRequestId, ...(page.afterId !== undefined ? { id: { gt: page.afterId } } : {}) },
    orderBy: { id: 'asc' },
    take: page.limit + 1,
    select: auditEntrySelect,
  });
  return { rows: rows.slice(0, page.limit).map(recordedEntry), more: rows.length > page.limit };
}

/** Display names of the users who acted, in one query. */
export async function namesOf(db: Db, userIds: (string | null)[]): Promise<Map<string, string>> {
  const ids = [...new Set(userIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } });
  return new Map(users.map((u) => [u.id, u.name || u.email]));
}
