import type { Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { identifierHmac, sha256Hex, type Keyring } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { WORK_CHANNEL } from '../../engine/deps';
import { NO_INTEGRATIONS_REASON } from '../../engine/state-machine';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from './serialize';

export interface CreateDeletionRequestInput {
  workspaceId: string;
  identifier: string;
  idempotencyKey?: string;
}

const select = { ...deletionRequestSelect, requestHash: true, integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' } } } satisfies Prisma.DeletionRequestSelect;

/**
 * Records a deletion request and, in the same transaction, one integration request per
 * enabled integration of the workspace with a snapshot of its configuration. Each
 * integration request row is also its own queue entry (due now), so no accepted request
 * exists without its work. `replayed` is true when an Idempotency-Key matched an earlier call.
 */
export async function createDeletionRequest(db: Db, keyring: Keyring, actor: Actor, input: CreateDeletionRequestInput) {
  const requestHash = sha256Hex(`${input.workspaceId}\n${input.identifier}`);
  if (input.idempotencyKey) {
    const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, requestHash);
    if (earlier) return { deletionRequest: earlier, replayed: true };
  }
  const id = newId(ID_PREFIX.deletionRequest);
  try {
    const created = await db.$transaction(async (tx) => {
      const integrations = await tx.integration.findMany({
        where: { workspaceId: input.workspaceId, enabled: true },
        select: { id: true, name: true, type: true, config: true, accountId: true },
        orderBy: { createdAt: 'asc' },
      });
      const now = new Date();
      await tx.deletionRequest.create({
        data: {
          id,
          organizationId: actor.organizationId,
          workspaceId: input.workspaceId,
          identifier: input.identifier,
          identifierHmac: identifierHmac(keyring, input.identifier),
          channel: actor.via === 'session' ? 'DASHBOARD' : 'API',
          createdByUserId: actor.userId,
          createdByTokenId: actor.tokenId ?? null,
          idempotencyKey: input.idempotencyKey ?? null,
          requestHash,
          createdAt: now,
          // Nothing to run: the outcome is explicit at once instead of a request that never moves.
          ...(integrations.length === 0 ? { status: 'FAILED' as const, statusReason: NO_INTEGRATIONS_REASON, completedAt: now } : {}),
        },
      });
      if (integrations.length > 0) {
        await tx.integrationRequest.createMany({
          data: integrations.map((integration) => ({
            id: newId(ID_PREFIX.integrationRequest),
            deletionRequestId: id,
            integrationId: integration.id,
            integrationName: integration.name,
            integrationType: integration.type,
            configSnapshot: integration.config as Prisma.InputJsonValue,
            accountId: integration.accountId,
            nextAttemptAt: now,
            createdAt: now,
          })),
        });
        // Delivered on commit: idle workers wake at once instead of at their next poll.
        await tx.$executeRaw`SELECT pg_notify(${WORK_CHANNEL}, '')`;
      }
      await recordAudit(tx, actor, {
        organizationId: actor.organizationId,
        deletionRequestId: id,
        action: 'request.created',
        summary: `Deletion request created for ${integrations.length} integration(s)`,
        details: { workspaceId: input.workspaceId, integrations: integrations.map((i) => ({ id: i.id, name: i.name, type: i.type })) },
      });
      return tx.deletionRequest.findUniqueOrThrow({ where: { id }, select });
    });
    return { deletionRequest: toDeletionRequestDto(created), replayed: false };
  } catch (error) {
    // Two concurrent calls with one Idempotency-Key: the loser answers with the winner's request.
    if (input.idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, requestHash);
      if (earlier) return { deletionRequest: earlier, replayed: true };
    }
    throw error;
  }
}

async function findByIdempotencyKey(db: Db, actor: Actor, idempotencyKey: string, requestHash: string) {
  const earlier = await db.deletionRequest.findUnique({
    where: { createdByUserId_idempotencyKey: { createdByUserId: actor.userId, idempotencyKey } },
    select,
  });
  if (!earlier) return null;
  if (earlier.requestHash !== requestHash) {
    throw new AppError('UNPROCESSABLE_CONTENT', 'This Idempotency-Key was already used with a different request body');
  }
  return toDeletionRequestDto(earlier);
}
