import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';

const integrationRequestSelect = {
  id: true,
  status: true,
  trackingId: true,
  integrationName: true,
  integrationType: true,
  configSnapshot: { select: { config: true } },
  accountId: true,
  integrationId: true,
  consumesType: true,
  integration: { select: { accountId: true, config: true, enabled: true, name: true } },
  deletionRequest: { select: { id: true, organizationId: true, identifier: true, workspaceId: true } },
} satisfies Prisma.IntegrationRequestSelect;

/** An integration request of `organizationId` with what a member's action on it needs; null when there is none. */
export function findIntegrationRequest(db: Db, organizationId: string, integrationRequestId: string) {
  return db.integrationRequest.findFirst({
    where: { id: integrationRequestId, deletionRequest: { organizationId } },
    select: integrationRequestSelect,
  });
}

/** A deletion request of `organizationId` with its integration requests' statuses; null when there is none. */
export function findDeletionRequest(db: Db, organizationId: string, deletionRequestId: string) {
  return db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId },
    select: {
      id: true,
      workspaceId: true,
      identifier: true,
      integrationRequests: {
        select: { id: true, status: true, trackingId: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      },
    },
  });
}

/** How many integration requests a deletion request has (read under the parent's lock by the late fan-out). */
export async function countIntegrationRequests(
  db: Prisma.TransactionClient,
  deletionRequestId: string,
): Promise<number> {
  return db.integrationRequest.count({ where: { deletionRequestId } });
}
