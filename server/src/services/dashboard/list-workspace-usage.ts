import type { Db } from '../../db/client';
import type { Actor } from '../auth/actor';

/** Per workspace of the organization: how many integrations and requests it holds (what its deletion takes with it). */
export async function listWorkspaceUsage(db: Db, actor: Actor) {
  const organizationId = actor.organizationId;
  const [workspaces, integrations, requests] = await Promise.all([
    db.workspace.findMany({ where: { organizationId }, select: { id: true } }),
    db.integration.groupBy({ by: ['workspaceId'], where: { workspace: { organizationId } }, _count: { _all: true } }),
    db.deletionRequest.groupBy({ by: ['workspaceId'], where: { organizationId }, _count: { _all: true } }),
  ]);
  const integrationCount = new Map(integrations.map((row) => [row.workspaceId, row._count._all]));
  const requestCount = new Map(requests.map((row) => [row.workspaceId, row._count._all]));
  return workspaces.map((w) => ({
    workspaceId: w.id,
    integrations: integrationCount.get(w.id) ?? 0,
    requests: requestCount.get(w.id) ?? 0,
  }));
}
