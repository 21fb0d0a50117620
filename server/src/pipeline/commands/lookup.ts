import type { Db } from '../../db/client';
import { notFound } from '../../lib/errors';
import type { Actor } from '../../services/auth/actor';
import { findDeletionRequest, findIntegrationRequest } from '../store/lookup';

/** The actor's integration request, or a 404. */
export async function integrationRequestOf(db: Db, actor: Actor, integrationRequestId: string) {
  const ir = await findIntegrationRequest(db, actor.organizationId, integrationRequestId);
  if (!ir) throw notFound('Integration request');
  return ir;
}

/** The actor's deletion request, or a 404. */
export async function deletionRequestOf(db: Db, actor: Actor, deletionRequestId: string) {
  const dr = await findDeletionRequest(db, actor.organizationId, deletionRequestId);
  if (!dr) throw notFound('Deletion request');
  return dr;
}
