import type { Db } from '../db/client';
import type { Prisma } from '../generated/prisma/client';
import type { Keyring } from '../lib/crypto';
import { AppError, notFound } from '../lib/errors';
import { ID_PREFIX, newId } from '../lib/ids';
import type { KeepAnswer } from '../services/idempotency/idempotency-keys';
import { openSecret, sealSecret } from '../services/keys/secret-store';
import { assertUrlAllowed, blockedReason, type OutboundPolicy } from '../lib/ssrf';
import type { CallbackEndpoint, CallbackEndpointWithSecret, CallbackEventType } from '@shared/schemas/callbacks';
import { assertWorkspaceAllowed, mayUseWorkspace, type Actor } from '../services/auth/actor';
import { recordAudit } from '../services/audit/record-audit';
import { generateCallbackSecret } from '../lib/webhook-signing';

export interface CallbackDeps {
  prisma: Db;
  keyring: Keyring;
  policy: OutboundPolicy;
}

export const callbackEndpointSelect = {
  id: true,
  workspaceId: true,
  url: true,
  description: true,
  events: true,
  enabled: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.CallbackEndpointSelect;

export const endpointSecretContext = (endpointId: string) => `callback-endpoint:${endpointId}`;

type EndpointRow = Prisma.CallbackEndpointGetPayload<{ select: typeof callbackEndpointSelect }>;

/** An endpoint as the API answers it: dates as ISO strings, never a secret. */
function endpointView(row: EndpointRow): CallbackEndpoint {
  return {
    ...row,
    events: row.events as CallbackEventType[],
    previousSecretExpiresAt: row.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Endpoints receive personal-data-free events, but they are still outbound calls: the URL
 * passes the SSRF guard when saved (and again on every delivery), and must be HTTPS unless
 * it is a host the operator allowlisted (OUTBOUND_ALLOWLIST: development, tests).
 */
async function assertCallbackUrl(url: string, policy: OutboundPolicy): Promise<void> {
  let resolved;
  try {
    resolved = await assertUrlAllowed(url, policy);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `Callback URL refused: ${(error as Error).message}`);
  }
  if (new URL(url).protocol === 'http:' && resolved.addresses.every(({ address }) => blockedReason(address) === null)) {
    throw new AppError('BAD_REQUEST', 'Callback URLs must use HTTPS');
  }
}

async function findEndpoint(db: Db, actor: Actor, endpointId: string) {
  const endpoint = await db.callbackEndpoint.findFirst({
    where: { id: endpointId, organizationId: actor.organizationId },
    select: callbackEndpointSelect,
  });
  // A token limited to workspaces manages only its workspaces' endpoints.
  if (!endpoint || (actor.workspaceIds && (!endpoint.workspaceId || !mayUseWorkspace(actor, endpoint.workspaceId))))
    throw notFound('Callback endpoint');
  return endpoint;
}

export async function listCallbackEndpoints(db: Db, actor: Actor): Promise<CallbackEndpoint[]> {
  const rows = await db.callbackEndpoint.findMany({
    where: {
      organizationId: actor.organizationId,
      ...(actor.workspaceIds ? { workspaceId: { in: [...actor.workspaceIds] } } : {}),
    },
    select: callbackEndpointSelect,
    orderBy: { createdAt: 'asc' },
  });
  return rows.map(endpointView);
}

/** A new endpoint; its signing secret is in this answer only (rotate to get a new one). */
export async function createCallbackEndpoint(
  deps: CallbackDeps,
  actor: Actor,
  input: { url: string; description: string; events: CallbackEventType[]; workspaceId?: string | null },
  /** Stores the answer (its Idempotency-Key's) in the same transaction as the endpoint. */
  keep?: KeepAnswer<CallbackEndpointWithSecret>,
) {
  const workspaceId = input.workspaceId ?? null;
  if (workspaceId) {
    const workspace = await deps.prisma.workspace.findFirst({
      where: { id: workspaceId, organizationId: actor.organizationId },
      select: { id: true },
    });
    if (!workspace) throw notFound('Workspace');
    assertWorkspaceAllowed(actor, workspaceId);
  } else if (actor.workspaceIds) {
    throw new AppError('FORBIDDEN', 'This token is limited to workspaces; choose one for the endpoint');
  }
  await assertCallbackUrl(input.url, deps.policy);
  const id = newId(ID_PREFIX.callbackEndpoint);
  const secret = generateCallbackSecret();
  return deps.prisma.$transaction(async (tx) => {
    const secretCipher = await sealSecret(
      { prisma: tx, keyring: deps.keyring },
      actor.organizationId,
      secret,
      endpointSecretContext(id),
    );
    const created = await tx.callbackEndpoint.create({
      data: {
        id,
        organizationId: actor.organizationId,
        workspaceId,
        url: input.url,
        description: input.description,
        events: [...new Set(input.events)],
        secretCipher,
      },
      select: callbackEndpointSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'callback_endpoint.created',
      summary: `Callback endpoint ${new URL(input.url).host} created`,
      details: { endpointId: id, workspaceId, events: created.events },
    });
    const answer = { ...endpointView(created), secret };
    await keep?.(tx, answer);
    return answer;
  });
}

export async function updateCallbackEndpoint(
  deps: CallbackDeps,
  actor: Actor,
  input: { endpointId: string; url?: string; description?: string; events?: CallbackEventType[]; enabled?: boolean },
) {
  const before = await findEndpoint(deps.prisma, actor, input.endpointId);
  if (input.url !== undefined) await assertCallbackUrl(input.url, deps.policy);
  return deps.prisma.$transaction(async (tx) => {
    const updated = await tx.callbackEndpoint.update({
      where: { id: before.id },
      data: {
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      },
      select: callbackEndpointSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'callback_endpoint.updated',
      summary: `Callback endpoint ${new URL(updated.url).host} updated`,
      details: { endpointId: before.id, events: updated.events, enabled: updated.enabled },
    });
    return endpointView(updated);
  });
}

export async function deleteCallbackEndpoint(db: Db, actor: Actor, endpointId: string) {
  const endpoint = await findEndpoint(db, actor, endpointId);
  await db.$transaction(async (tx) => {
    await tx.callbackEndpoint.delete({ where: { id: endpoint.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'callback_endpoint.deleted',
      summary: `Callback endpoint ${new URL(endpoint.url).host} deleted`,
      details: { endpointId },
    });
  });
  return { id: endpoint.id };
}

/**
 * A new signing secret (returned this once). For `overlapHours` the old one keeps signing
 * too — each delivery then carries two signatures — so receivers can switch without a gap.
 */
export async function rotateCallbackSecret(
  deps: CallbackDeps,
  actor: Actor,
  input: { endpointId: string; overlapHours: number },
  /** Stores the answer (its Idempotency-Key's) in the same transaction as the rotation. */
  keep?: KeepAnswer<CallbackEndpointWithSecret>,
) {
  const endpoint = await findEndpoint(deps.prisma, actor, input.endpointId);
  const secret = generateCallbackSecret();
  return deps.prisma.$transaction(async (tx) => {
    const [current] = await tx.$queryRaw<
      { secretCipher: string }[]
    >`SELECT "secretCipher" FROM "CallbackEndpoint" WHERE id = ${endpoint.id} FOR UPDATE`;
    const context = endpointSecretContext(endpoint.id);
    const secretCipher = await sealSecret({ prisma: tx, keyring: deps.keyring }, actor.organizationId, secret, context);
    const overlapEnds = input.overlapHours > 0 ? new Date(Date.now() + input.overlapHours * 3_600_000) : null;
    const updated = await tx.callbackEndpoint.update({
      where: { id: endpoint.id },
      data: {
        secretCipher,
        previousSecretCipher: overlapEnds ? current!.secretCipher : null,
        previousSecretExpiresAt: overlapEnds,
      },
      select: callbackEndpointSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'callback_endpoint.secret_rotated',
      summary: `Signing secret of callback endpoint ${new URL(endpoint.url).host} rotated (old secret signs for ${input.overlapHours} more hour(s))`,
      details: { endpointId: endpoint.id, overlapHours: input.overlapHours },
    });
    const answer = { ...endpointView(updated), secret };
    await keep?.(tx, answer);
    return answer;
  });
}

/** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
export async function signingSecrets(
  deps: Pick<CallbackDeps, 'prisma' | 'keyring'>,
  row: {
    organizationId: string;
    endpointId: string;
    secretCipher: string;
    previousSecretCipher: string | null;
    previousSecretExpiresAt: Date | null;
  },
  now = new Date(),
): Promise<string[]> {
  const context = endpointSecretContext(row.endpointId);
  const secrets = [await openSecret(deps, row.organizationId, row.secretCipher, context)];
  if (row.previousSecretCipher && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now) {
    secrets.push(await openSecret(deps, row.organizationId, row.previousSecretCipher, context));
  }
  return secrets;
}

export { findEndpoint as findCallbackEndpoint };
