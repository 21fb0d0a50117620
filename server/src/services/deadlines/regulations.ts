import { builtInRule, isBuiltInRegulation, type RegulationRule } from '@shared/deadlines';
import type { Db, DbOrTx } from '../../db/client';
import { AppError, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

/**
 * The regulation `name` means in an organization: GDPR and CCPA (any case), or one of its
 * custom policies (exact name). Anything else is a 400 naming the choices.
 */
export async function resolveRegulation(db: DbOrTx, organizationId: string, name: string): Promise<RegulationRule> {
  const upper = name.trim().toUpperCase();
  if (upper === 'CPRA') return builtInRule('CCPA');
  if (isBuiltInRegulation(upper)) return builtInRule(upper);
  const policy = await db.regulationPolicy.findUnique({
    where: { organizationId_name: { organizationId, name: name.trim() } },
    select: { name: true, days: true, extensionDays: true },
  });
  if (!policy) {
    const custom = await db.regulationPolicy.findMany({
      where: { organizationId },
      select: { name: true },
      orderBy: { name: 'asc' },
    });
    const choices = ['GDPR', 'CCPA', ...custom.map((p) => p.name)].map((n) => `"${n}"`).join(', ');
    throw new AppError('BAD_REQUEST', `Unknown regulation; use one of ${choices}`, {
      issues: [{ path: ['regulation'], message: `must be one of ${choices}` }],
    });
  }
  return { name: policy.name, kind: 'days', days: policy.days, extensionDays: policy.extensionDays };
}

/**
 * The rule a stored regulation name stands for, from what was read with it (the organization's
 * policy of that name, if any), without a query: GDPR and CCPA (CPRA) built in, else the policy.
 * Null when the name is neither (a policy removed since): `resolveRegulation` then says so.
 */
export function storedRegulationRule(
  name: string,
  policy: { days: number; extensionDays: number } | null,
): RegulationRule | null {
  const upper = name.trim().toUpperCase();
  if (upper === 'CPRA') return builtInRule('CCPA');
  if (isBuiltInRegulation(upper)) return builtInRule(upper);
  return policy ? { name, kind: 'days', days: policy.days, extensionDays: policy.extensionDays } : null;
}

export async function listRegulations(db: Db, actor: Actor) {
  const [organization, policies, workspaces] = await Promise.all([
    db.organization.findUniqueOrThrow({
      where: { id: actor.organizationId },
      select: { defaultRegulation: true, timeZone: true },
    }),
    db.regulationPolicy.findMany({
      where: { organizationId: actor.organizationId },
      select: { id: true, name: true, days: true, extensionDays: true, createdAt: true },
      orderBy: { name: 'asc' },
    }),
    db.workspace.findMany({
      where: { organizationId: actor.organizationId },
      select: { id: true, name: true, regulation: true },
      orderBy: { createdAt: 'asc' },
    }),
  ]);
  return {
    defaultRegulation: organization.defaultRegulation,
    timeZone: organization.timeZone,
    builtIn: [
      { name: 'GDPR', description: 'One month from receipt (Art. 12(3)), extendable by two further months' },
      { name: 'CCPA', description: '45 days from receipt (covers CPRA), extendable once by 45 days' },
    ],
    policies,
    workspaces,
  };
}

export async function createRegulationPolicy(
  db: Db,
  actor: Actor,
  input: { name: string; days: number; extensionDays: number },
) {
  try {
    return await db.$transaction(async (tx) => {
      const policy = await tx.regulationPolicy.create({
        data: { id: newId('reg'), organizationId: actor.organizationId, ...input },
        select: { id: true, name: true, days: true, extensionDays: true, createdAt: true },
      });
      await recordAudit(tx, actor, {
        organizationId: actor.organizationId,
        action: 'regulation.policy_created',
        summary: `Deadline policy "${input.name}" created: ${input.days} day(s), extendable by ${input.extensionDays}`,
        details: input,
      });
      return policy;
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002')
      throw new AppError('CONFLICT', `A policy named "${input.name}" already exists`);
    throw error;
  }
}

/** Refused while the organization's default or a workspace uses it (requests keep their computed deadline). */
export async function deleteRegulationPolicy(db: Db, actor: Actor, policyId: string) {
  return db.$transaction(async (tx) => {
    const policy = await tx.regulationPolicy.findFirst({
      where: { id: policyId, organizationId: actor.organizationId },
      select: { id: true, name: true },
    });
    if (!policy) throw notFound('Policy');
    const [organization, users] = await Promise.all([
      tx.organization.findUniqueOrThrow({ where: { id: actor.organizationId }, select: { defaultRegulation: true } }),
      tx.workspace.count({ where: { organizationId: actor.organizationId, regulation: policy.name } }),
    ]);
    if (organization.defaultRegulation === policy.name || users > 0) {
      throw new AppError(
        'CONFLICT',
        `"${policy.name}" is in use by the organization's default or a workspace; choose another regulation there first`,
      );
    }
    await tx.regulationPolicy.delete({ where: { id: policy.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'regulation.policy_deleted',
      summary: `Deadline policy "${policy.name}" deleted`,
    });
    return { ok: true };
  });
}

export async function setDefaultRegulation(db: Db, actor: Actor, regulation: string) {
  return db.$transaction(async (tx) => {
    const rule = await resolveRegulation(tx, actor.organizationId, regulation);
    await tx.organization.update({ where: { id: actor.organizationId }, data: { defaultRegulation: rule.name } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'regulation.default_changed',
      summary: `Default regulation set to ${rule.name}`,
    });
    return { defaultRegulation: rule.name };
  });
}

/** The time zone whose calendar days the organization's new deadlines count (existing ones keep theirs). */
export async function setOrganizationTimeZone(db: Db, actor: Actor, timeZone: string) {
  return db.$transaction(async (tx) => {
    await tx.organization.update({ where: { id: actor.organizationId }, data: { timeZone } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'organization.time_zone_changed',
      summary: `Deadlines counted in the time zone ${timeZone}`,
    });
    return { timeZone };
  });
}

/** `regulation` null: the workspace follows the organization's default. */
export async function setWorkspaceRegulation(
  db: Db,
  actor: Actor,
  input: { workspaceId: string; regulation: string | null },
) {
  return db.$transaction(async (tx) => {
    const workspace = await tx.workspace.findFirst({
      where: { id: input.workspaceId, organizationId: actor.organizationId },
      select: { id: true, name: true },
    });
    if (!workspace) throw notFound('Workspace');
    const name =
      input.regulation === null ? null : (await resolveRegulation(tx, actor.organizationId, input.regulation)).name;
    await tx.workspace.update({ where: { id: workspace.id }, data: { regulation: name } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'workspace.regulation_changed',
      summary: `Workspace "${workspace.name}" regulation: ${name ?? "the organization's default"}`,
    });
    return { workspaceId: workspace.id, regulation: name };
  });
}
