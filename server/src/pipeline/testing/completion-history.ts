import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import type { Actor } from '../../services/auth/actor';
import { createDeletionRequest } from '../commands/create';

/**
 * Test set-up for deadline projections: `count` earlier requests in `workspaceId`, created at
 * `createdAt`, whose every integration confirmed the deletion `days` days later, so the
 * integrations' median time to SUCCESS (what the at-risk projection reads) is `days` days.
 */
export async function recordPastCompletions(
  deps: { prisma: Db; keyring: Keyring },
  actor: Actor,
  workspaceId: string,
  { days, createdAt, count = 3 }: { days: number; createdAt: Date; count?: number },
): Promise<void> {
  const completedAt = new Date(createdAt.getTime() + days * 86_400_000);
  for (let i = 0; i < count; i++) {
    const { deletionRequest } = await createDeletionRequest(
      deps,
      actor,
      { workspace: { id: workspaceId }, identifier: `completed-earlier-${i}@example.com` },
      createdAt,
    );
    await deps.prisma.integrationRequest.updateMany({
      where: { deletionRequestId: deletionRequest.id },
      data: { status: 'SUCCESS', completedAt },
    });
    await deps.prisma.deletionRequest.update({ where: { id: deletionRequest.id }, data: { status: 'SUCCESS' } });
  }
}
