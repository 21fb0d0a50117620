import { hotQuery, type Db } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { identifierHmac, sha256Hex, type Keyring } from '../../lib/crypto';
import { AppError, notFound } from '../../lib/errors';
import { hashToken, isWellFormedToken } from '../../lib/tokens';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { IntegrationType } from '@shared/statuses';
import type { Actor } from '../auth/actor';
import { auditActor } from '../audit/record-audit';
import { wakeWorkers } from '../../engine/wake-up';
import { INSERT_REQUEST } from './insert-request';
import { NO_INTEGRATIONS_REASON } from '../../engine/state-machine';
import { deletionRequestSelect, integrationRequestSelect, toDeletionRequestDto } from './serialize';

export interface CreateDeletionRequestInput {
  workspaceId: string;
  identifier: string;
  idempotencyKey?: string;
  /** The workspace's enabled integrations when the caller already read them (see findWorkspaceForCreate). */
  integrations?: EnabledIntegration[];
}

export interface EnabledIntegration {
  id: string;
  name: string;
  type: IntegrationType;
  config: Prisma.JsonValue;
  accountId: string | null;
}

/**
 * The actor's workspace that a Workspace API Key names, with its enabled integrations in
 * creation order, in one query: the public create's key lookup and the snapshot source.
 */
export async function findWorkspaceForCreate(db: Db, actor: Actor, apiKey: string) {
  const trimmed = apiKey.trim();
  if (!isWellFormedToken('workspaceApiKey', trimmed)) throw notFound('Workspace for this API key');
  const rows = await hotQuery<{ workspaceId: string; organizationId: string } & { [K in keyof EnabledIntegration]: EnabledIntegration[K] | null }>(
    db,
    `SELECT w.id AS "workspaceId", w."organizationId", i.id, i.name, i.type::text AS type, i.config, i."accountId"
       FROM "Workspace" w LEFT JOIN "Integration" i ON i."workspaceId" = w.id AND i.enabled
      WHERE w."apiKeyHash" = $1
      ORDER BY i."createdAt", i.id`,
    [hashToken(trimmed)],
  );
  const first = rows[0];
  if (!first || first.organizationId !== actor.organizationId) throw notFound('Workspace for this API key');
  const integrations = rows.filter((r) => r.id !== null).map((r) => ({ id: r.id!, name: r.name!, type: r.type!, config: r.config, accountId: r.accountId }));
  return { id: first.workspaceId, organizationId: first.organizationId, integrations };
}

const select = { ...deletionRequestSelect, requestHash: true, integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' } } } satisfies Prisma.DeletionRequestSelect;

/** Whether a write failed on a unique constraint (Prisma's own error, or from a raw statement). */
function isUniqueViolation(error: unknown): boolean {
  // From pg itself (hotQuery on the pool).
  if ((error as { code?: unknown }).code === '23505') return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: string } } } | undefined)?.driverAdapterError?.cause;
  return error.code === 'P2002' || (error.code === 'P2010' && cause?.originalCode === '23505');
}

/**
 * Records a deletion request and, atomically, one integration request per enabled
 * integration of the workspace with a snapshot of its configuration, and the audit entry.
 * Each integration request row is also its own queue entry (due now), so no accepted
 * request exists without its work. `replayed` is true when an Idempotency-Key matched an
 * earlier call.
 *
 * The hot path of the public API: the rows are written by one INSERT statement (data-
 * modifying CTEs are atomic and need no BEGIN/COMMIT round trips), and the answer is built
 * from the values written instead of being read back.
 */
export async function createDeletionRequest(db: Db, keyring: Keyring, actor: Actor, input: CreateDeletionRequestInput) {
  const requestHash = sha256Hex(`${input.workspaceId}\n${input.identifier}`);
  if (input.idempotencyKey) {
    const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, requestHash);
    if (earlier) return { deletionRequest: earlier, replayed: true };
  }
  const id = newId(ID_PREFIX.deletionRequest);
  try {
    const integrations =
      input.integrations ??
      (await db.$queryRaw<EnabledIntegration[]>`
        SELECT id, name, type::text AS type, config, "accountId" FROM "Integration"
         WHERE "workspaceId" = ${input.workspaceId} AND enabled ORDER BY "createdAt", id`);
    const now = new Date();
    // Nothing to run: the outcome is explicit at once instead of a request that never moves.
    const empty = integrations.length === 0;
    const row = {
      id,
      organizationId: actor.organizationId,
      workspaceId: input.workspaceId,
      identifier: input.identifier,
      hashed: false,
      status: empty ? ('FAILED' as const) : ('STAGING' as const),
      statusReason: empty ? NO_INTEGRATIONS_REASON : null,
      channel: actor.via === 'session' ? ('DASHBOARD' as const) : ('API' as const),
      createdByUserId: actor.userId,
      createdAt: now,
      updatedAt: now,
      completedAt: empty ? now : null,
      integrationRequests: integrations.map((integration) => ({
        id: newId(ID_PREFIX.integrationRequest),
        integrationId: integration.id,
        integrationName: integration.name,
        integrationType: integration.type,
        status: 'STAGING' as const,
        attempts: 0,
        trackingId: null,
        lastError: null,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      })),
    };
    const who = auditActor(actor);
    const details = { workspaceId: input.workspaceId, integrations: integrations.map((i) => ({ id: i.id, name: i.name, type: i.type })) };
    // Foreign keys are checked at the end of the statement, when the parent row exists.
    await hotQuery(db, INSERT_REQUEST, [
      id,
      actor.organizationId,
      input.workspaceId,
      input.identifier,
      identifierHmac(keyring, input.identifier),
      row.status,
      row.statusReason,
      row.channel,
      actor.userId,
      actor.tokenId ?? null,
      input.idempotencyKey ?? null,
      requestHash,
      now.toISOString(),
      empty,
      row.integrationRequests.map((r) => r.id),
      integrations.map((i) => i.id),
      integrations.map((i) => i.name),
      integrations.map((i) => i.type),
      integrations.map((i) => JSON.stringify(i.config)),
      integrations.map((i) => i.accountId),
      who.actorType,
      who.actorId,
      `Deletion request created for ${integrations.length} integration(s)`,
      JSON.stringify(details),
    ]);
    if (!empty) wakeWorkers(db);
    return { deletionRequest: toDeletionRequestDto(row), replayed: false };
  } catch (error) {
    // Two concurrent calls with one Idempotency-Key: the loser answers with the winner's request.
    if (input.idempotencyKey && isUniqueViolation(error)) {
      const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, requestHash);
      if (earlier) return { deletionRequest: earlier, replayed: true };
    }
    // An integration deleted between reading the workspace and writing the snapshot: nothing
    // was written (one statement), and the caller can simply send the request again.
    if ((error as { code?: unknown }).code === '23503') {
      throw new AppError('CONFLICT', "The workspace's integrations changed while the request was being created; send it again");
    }
    throw error;
  }
}

async function findByIdempotencyKey(db: Db, actor: Actor, idempotencyKey: string, requestHash: string) {
  const earlier = await db.deletionRequest.findUnique({
    // Scoped to the organization and the token's owner: the same key in another organization is another request.
    where: { organizationId_createdByUserId_idempotencyKey: { organizationId: actor.organizationId, createdByUserId: actor.userId, idempotencyKey } },
    select,
  });
  if (!earlier) return null;
  if (earlier.requestHash !== requestHash) {
    throw new AppError('UNPROCESSABLE_CONTENT', 'This Idempotency-Key was already used with a different request body');
  }
  return toDeletionRequestDto(earlier);
}
