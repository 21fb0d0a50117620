import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { findDeletionRequest, findIntegrationRequest } from '../store/lookup';

/**
 * The actor's integration request, or a 404 (also when it is not part of `deletionRequestId`,
 * when given); a token limited to other workspaces gets a 403.
 */
export async function integrationRequestOf(
  db: Db,
  actor: Actor,
  integrationRequestId: string,
  deletionRequestId?: string,
) {
  const ir = await findIntegrationRequest(db, actor.organizationId, integrationRequestId);
  if (!ir || (deletionRequestId !== undefined && ir.deletionRequest.id !== deletionRequestId))
    throw notFound('Integration request');
  assertWorkspaceAllowed(actor, ir.deletionRequest.workspaceId);
  return ir;
}

/** The actor's deletion request, or a 404; a token limited to other workspaces gets a 403. */
export async function deletionRequestOf(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await findDeletionRequest(db, actor.organizationId, deletionRequestId);
  if (!dr) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, dr.workspaceId);
  return dr;
}
