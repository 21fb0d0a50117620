import type { AuditLogFilter } from '@shared/schemas/dashboard';
import { AUDIT_PEOPLE_ACTORS, AUDIT_SYSTEM_ACTOR } from '@shared/schemas/dashboard';
import type { Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { decodeBigintCursor } from '../../lib/keyset-cursor';
import type { Actor } from '../auth/actor';
import { auditEntrySelect, namesOf, recordedEntry, toAuditEntryDto } from '../audit/audit-entry';
import { identifierMasker, identifiersOfRequests, maskAuditEntry } from '../audit/mask-exchanges';

/**
 * The filter as SQL over "AuditLog" a (and its request d, for the workspace): one statement, so a
 * workspace with many requests costs a join, not a list of their ids.
 */
function conditionsOf(organizationId: string, filter: AuditLogFilter, before: bigint | undefined): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`a."organizationId" = ${organizationId}`];
  if (before !== undefined) conditions.push(Prisma.sql`a.id < ${before}`);
  if (filter.actions?.length) conditions.push(Prisma.sql`a.action IN (${Prisma.join(filter.actions)})`);
  if (filter.scope === 'admin') conditions.push(Prisma.sql`a."deletionRequestId" IS NULL`);
  if (filter.scope === 'requests') conditions.push(Prisma.sql`a."deletionRequestId" IS NOT NULL`);
  if (filter.actorId === AUDIT_SYSTEM_ACTOR) conditions.push(Prisma.sql`a."actorId" IS NULL`);
  else if (filter.actorId === AUDIT_PEOPLE_ACTORS) conditions.push(Prisma.sql`a."actorId" IS NOT NULL`);
  else if (filter.actorId) conditions.push(Prisma.sql`a."actorId" = ${filter.actorId}`);
  if (filter.deletionRequestId) conditions.push(Prisma.sql`a."deletionRequestId" = ${filter.deletionRequestId}`);
  if (filter.createdFrom) conditions.push(Prisma.sql`a."createdAt" >= ${new Date(filter.createdFrom)}`);
  if (filter.createdTo) conditions.push(Prisma.sql`a."createdAt" <= ${new Date(filter.createdTo)}`);
  // A request's entries belong to its workspace; admin entries name theirs in details.
  if (filter.workspaceId)
    conditions.push(
      Prisma.sql`(d."workspaceId" = ${filter.workspaceId} OR a.details->>'workspaceId' = ${filter.workspaceId})`,
    );
  return Prisma.join(conditions, ' AND ');
}

/**
 * The organization's audit log, newest first, narrowed by action, scope, actor, workspace,
 * request id and date; the cursor is the last entry's id. Each entry names the request and the
 * integration it concerns (ids and integration names only: never a subject identifier, and
 * every identifier of a request masked in its entries' summaries and recorded exchanges).
 */
export async function listAuditLog(
  db: Db,
  actor: Actor,
  input: { limit: number; cursor?: string | null; filter?: AuditLogFilter },
) {
  const before = input.cursor ? decodeBigintCursor(input.cursor) : undefined;
  const filter = input.filter ?? {};
  const ids = await db.$queryRaw<{ id: bigint }[]>`
    SELECT a.id FROM "AuditLog" a LEFT JOIN "DeletionRequest" d ON d.id = a."deletionRequestId"
     WHERE ${conditionsOf(actor.organizationId, filter, before)}
     ORDER BY a.id DESC LIMIT ${input.limit + 1}`;
  const rows = ids.length
    ? await db.auditLog.findMany({
        where: { organizationId: actor.organizationId, id: { in: ids.map((r) => r.id) } },
        orderBy: { id: 'desc' },
        select: auditEntrySelect,
      })
    : [];
  const page = rows.slice(0, input.limit).map(recordedEntry);
  const integrationRequestIds = [
    ...new Set(page.map((row) => row.integrationRequestId).filter((id): id is string => !!id)),
  ];
  const requestIds = [...new Set(page.map((row) => row.deletionRequestId).filter((id): id is string => !!id))];
  const [actorNames, integrationRequests, identifiers] = await Promise.all([
    namesOf(
      db,
      page.map((row) => row.actorId),
    ),
    integrationRequestIds.length
      ? db.integrationRequest.findMany({
          where: { id: { in: integrationRequestIds } },
          select: { id: true, integrationName: true, integrationId: true },
        })
      : Promise.resolve([]),
    identifiersOfRequests(db, requestIds),
  ]);
  const maskers = new Map([...identifiers].map(([id, values]) => [id, identifierMasker(values)]));
  const integrationOf = new Map(integrationRequests.map((ir) => [ir.id, ir]));
  const last = page[page.length - 1];
  return {
    items: page.map((row) => {
      const integration = row.integrationRequestId ? integrationOf.get(row.integrationRequestId) : undefined;
      const mask = row.deletionRequestId ? maskers.get(row.deletionRequestId) : undefined;
      const entry = toAuditEntryDto(row, actorNames);
      return {
        // A request's recorded exchanges carry its identifiers: masked here as on its detail.
        ...(mask ? maskAuditEntry(entry, mask) : entry),
        integrationName: integration?.integrationName ?? null,
        integrationId: integration?.integrationId ?? null,
      };
    }),
    nextCursor: rows.length > input.limit && last ? last.id.toString() : null,
  };
}

/** The actions recorded in the organization so far, for the audit log's action filter. */
export async function listAuditActions(db: Db, actor: Actor): Promise<string[]> {
  const rows = await db.auditLog.findMany({
    where: { organizationId: actor.organizationId },
    distinct: ['action'],
    select: { action: true },
    orderBy: { action: 'asc' },
  });
  return rows.map((row) => row.action);
}
