import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

export async function getOrganization(db: Db, actor: Actor) {
  const organization = await db.organization.findUnique({
    where: { id: actor.organizationId },
    select: {
      id: true,
      name: true,
      retentionAction: true,
      retentionDays: true,
      reverifyAfterDays: true,
      createdAt: true,
    },
  });
  if (!organization) throw notFound('Organization');
  return organization;
}

export async function renameOrganization(db: Db, actor: Actor, name: string) {
  return db.$transaction(async (tx) => {
    const organization = await tx.organization.update({
      where: { id: actor.organizationId },
      data: { name },
      select: { id: true, name: true },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'organization.renamed',
      summary: `Organization renamed to "${name}"`,
    });
    return organization;
  });
}

/** A member of the actor's organization, or "not found" (also for other organizations' users). */
export async function assertMember(db: Db, actor: Actor, userId: string): Promise<void> {
  const membership = await db.membership.findUnique({
    where: { userId_organizationId: { userId, organizationId: actor.organizationId } },
    select: { id: true },
  });
  if (!membership) throw notFound('User');
}

/** The retention policy: what happens to a request's identifier N days after it finished. */
export async function updateRetentionPolicy(
  db: Db,
  actor: Actor,
  input: { action: 'NONE' | 'HASH' | 'DELETE'; days: number },
) {
  return db.$transaction(async (tx) => {
    const organization = await tx.organization.update({
      where: { id: actor.organizationId },
      data: { retentionAction: input.action, retentionDays: input.days },
      select: { id: true, retentionAction: true, retentionDays: true },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'organization.retention_changed',
      summary:
        input.action === 'NONE'
          ? 'Retention policy turned off'
          : `Retention policy: ${input.action.toLowerCase()} identifiers ${input.days} day(s) after completion`,
      details: input,
    });
    return organization;
  });
}

/** Turns re-verification on (N days after SUCCESS) or off (null); audited. */
export async function updateReverification(db: Db, actor: Actor, input: { reverifyAfterDays: number | null }) {
  return db.$transaction(async (tx) => {
    const organization = await tx.organization.update({
      where: { id: actor.organizationId },
      data: { reverifyAfterDays: input.reverifyAfterDays },
      select: { id: true, reverifyAfterDays: true },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'organization.reverification_changed',
      summary:
        input.reverifyAfterDays === null
          ? 'Re-verification turned off'
          : `Re-verification ${input.reverifyAfterDays} day(s) after a deletion succeeded`,
      details: input,
    });
    return organization;
  });
}
