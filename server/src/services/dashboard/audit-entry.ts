import type { Prisma } from '../../generated/prisma/client';

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
  createdAt: true,
} satisfies Prisma.AuditLogSelect;

type AuditRow = Prisma.AuditLogGetPayload<{ select: typeof auditEntrySelect }>;

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
  };
}
