import { usesHashKey } from '@shared/integrations/sql-columns';
import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import type { KeepAnswer } from '../idempotency/idempotency-keys';
import { recordAudit } from '../audit/record-audit';
import { sealNewHashKey } from './hash-key';
import { getIntegration } from './integrations';

/**
 * Replaces the integration's hash key with a new random one: values hashed from now on differ
 * from those hashed before (which stay as they are, and still count as hashed). The key is never
 * returned; the audit log records who rotated it, not the key.
 */
export async function rotateIntegrationHashKey(
  deps: { prisma: Db; keyring: Keyring },
  actor: Actor,
  integrationId: string,
  keep?: KeepAnswer<{ integrationId: string; rotatedAt: string }>,
) {
  const current = await getIntegration(deps.prisma, actor, integrationId);
  if (!usesHashKey(current.type))
    throw new AppError('BAD_REQUEST', `A ${current.type} integration writes no hashed values, so it has no hash key`);
  return deps.prisma.$transaction(async (tx) => {
    const hashKeyCipher = await sealNewHashKey({ prisma: tx, keyring: deps.keyring }, actor.organizationId, current.id);
    const { updatedAt } = await tx.integration.update({
      where: { id: current.id },
      data: { hashKeyCipher },
      select: { updatedAt: true },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'integration.hash_key_rotated',
      summary: `Hash key of integration "${current.name}" rotated`,
      details: { integrationId: current.id },
    });
    const answer = { integrationId: current.id, rotatedAt: updatedAt.toISOString() };
    await keep?.(tx, answer);
    return answer;
  });
}
