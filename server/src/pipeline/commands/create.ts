import { hotQuery, type Db, type DbOrTx } from '../../db/client';
import { Prisma } from '../../generated/prisma/client';
import { hashHex, identifierHmac, sha256Hex, type Keyring } from '../../lib/crypto';
import { AppError, notFound } from '../../lib/errors';
import { hashToken, isWellFormedToken } from '../../lib/tokens';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { IntegrationType } from '@shared/statuses';
import { assertWorkspaceAllowed, type Actor } from '../../services/auth/actor';
import { auditActor } from '../../services/audit/record-audit';
import { dueAtFor, receiptConfirmByFor } from '@shared/deadlines';
import { calendarDay, startOfDayIn } from '@shared/zoned-days';
import { resolveRegulation, storedRegulationRule } from '../../services/deadlines/regulations';
import {
  deletionRequestSelect,
  integrationRequestSelect,
  toDeletionRequestDto,
} from '../../services/deletion-requests/serialize';
import { insertDeletionRequest, writtenRequest, type NewDeletionRequest } from '../store/fan-out';
import type { RequestIdentifierInput } from '@shared/identifiers';
import type { OnDuplicate } from '@shared/schemas/person';
import { matchingRequests } from '../../services/people/matching-requests';
import { requestIdentifiers } from './request-identifiers';
import { NO_INTEGRATIONS_REASON } from '../state-machine';
import { wakeCallbackDispatchers, wakeWorkers } from '../../queue/wake-up';

/** The workspace a request is for: named by its Workspace API Key (public API) or by id (dashboard). */
export type WorkspaceRef = { apiKey: string } | { id: string };

export interface CreateDeletionRequestInput {
  workspace: WorkspaceRef;
  identifier: string;
  idempotencyKey?: string;
  /** "GDPR", "CCPA" or a custom policy name; when absent, the workspace's (or the organization's default). */
  regulation?: string;
  /**
   * When the subject's request was received, if before now (an email, a backlog): the deadline runs
   * from then. A date alone ("2026-11-20") is the start of that day in the organization's time zone.
   */
  receivedAt?: Date | string;
  /** The primary identifier's type (absent: email when it reads as one, else untyped). */
  identifierType?: string;
  /** The person's other identifiers, typed. */
  identifiers?: RequestIdentifierInput[];
  /** The person already has an open request in the organization: create another (default), or answer that one. */
  onDuplicate?: OnDuplicate;
}

/** A clock a little ahead of ours may say "now" a moment later than we do: a time given as past may be this far ahead. */
export const CLOCK_SKEW_MS = 5 * 60_000;

interface EnabledIntegration {
  id: string;
  name: string;
  type: IntegrationType;
  config: Prisma.JsonValue;
  accountId: string | null;
  consumesType: string | null;
}

type WorkspaceRow = {
  workspaceId: string;
  organizationId: string;
  /** The workspace's regulation, else the organization's default. */
  regulationName: string;
  /** The organization's IANA time zone, whose calendar days deadlines count. */
  timeZone: string;
  /** That regulation's policy when it is one of the organization's own. */
  policyDays: number | null;
  policyExtensionDays: number | null;
  /** The workspace has enabled identity lookups. */
  hasLookups: boolean;
} & {
  [K in keyof EnabledIntegration]: EnabledIntegration[K] | null;
};

// The workspace, the regulation its requests get (with the organization's policy of that name)
// and its enabled integrations: everything a create reads, in one statement.
const WORKSPACE_WITH_INTEGRATIONS = (where: string) =>
  `SELECT w.id AS "workspaceId", w."organizationId",
          COALESCE(w.regulation, o."defaultRegulation") AS "regulationName", o."timeZone",
          p.days AS "policyDays", p."extensionDays" AS "policyExtensionDays",
          EXISTS (SELECT 1 FROM "IdentityLookup" l WHERE l."workspaceId" = w.id AND l.enabled) AS "hasLookups",
          i.id, i.name, i.type::text AS type, i.config, i."accountId", i."consumesType"
     FROM "Workspace" w
     JOIN "Organization" o ON o.id = w."organizationId"
     LEFT JOIN "RegulationPolicy" p
       ON p."organizationId" = w."organizationId" AND p.name = COALESCE(w.regulation, o."defaultRegulation")
     LEFT JOIN "Integration" i ON i."workspaceId" = w.id AND i.enabled
    WHERE ${where}
    ORDER BY i."createdAt", i.id`;

/**
 * The actor's workspace with its enabled integrations in creation order (the snapshot
 * source), in one query. Another organization's workspace, like an unknown one, is a 404.
 */
async function resolveWorkspace(db: Db, actor: Actor, ref: WorkspaceRef) {
  let rows: WorkspaceRow[] = [];
  const what = 'apiKey' in ref ? 'Workspace for this API key' : 'Workspace';
  if ('apiKey' in ref) {
    const trimmed = ref.apiKey.trim();
    if (isWellFormedToken('workspaceApiKey', trimmed))
      rows = await hotQuery<WorkspaceRow>(db, WORKSPACE_WITH_INTEGRATIONS(`w."apiKeyHash" = $1`), [hashToken(trimmed)]);
  } else {
    rows = await hotQuery<WorkspaceRow>(db, WORKSPACE_WITH_INTEGRATIONS('w.id = $1'), [ref.id]);
  }
  const first = rows[0];
  if (!first || first.organizationId !== actor.organizationId) throw notFound(what);
  // A token limited to workspaces may not create requests in the others.
  assertWorkspaceAllowed(actor, first.workspaceId);
  const integrations = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
      id: r.id!,
      name: r.name!,
      type: r.type!,
      config: r.config,
      accountId: r.accountId,
      consumesType: r.consumesType,
    }));
  const policy =
    first.policyDays === null ? null : { days: first.policyDays, extensionDays: first.policyExtensionDays ?? 0 };
  return {
    id: first.workspaceId,
    integrations,
    hasLookups: first.hasLookups,
    regulationName: first.regulationName,
    timeZone: first.timeZone,
    regulation: storedRegulationRule(first.regulationName, policy),
  };
}

/** A workspace's enabled integrations now, in creation order (the late fan-out's source). */
export function enabledIntegrations(db: DbOrTx, workspaceId: string): Promise<EnabledIntegration[]> {
  return hotQuery<EnabledIntegration>(
    db,
    `SELECT id, name, type::text AS type, config, "accountId", "consumesType" FROM "Integration" WHERE "workspaceId" = $1 AND enabled ORDER BY "createdAt", id`,
    [workspaceId],
  );
}

const select = {
  ...deletionRequestSelect,
  requestHash: true,
  integrationRequests: { select: integrationRequestSelect, orderBy: { createdAt: 'asc' } },
} satisfies Prisma.DeletionRequestSelect;

/** Whether a write failed on a unique constraint (Prisma's own error, or from a raw statement). */
function isUniqueViolation(error: unknown): boolean {
  // From pg itself (hotQuery on the pool).
  if ((error as { code?: unknown }).code === '23505') return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: string } } } | undefined)
    ?.driverAdapterError?.cause;
  return error.code === 'P2002' || (error.code === 'P2010' && cause?.originalCode === '23505');
}

/**
 * Records a deletion request and, atomically, one integration request per enabled
 * integration of the workspace with a snapshot of its configuration, and the audit entry.
 * Each integration request row is also its own queue entry (due now), so no accepted
 * request exists without its work. `replayed` is true when an Idempotency-Key matched an
 * earlier call. The one create of the public API and the dashboard: the workspace is
 * resolved here, once, with its integrations.
 *
 * The hot path of the public API: the rows are written by one statement (`insertDeletionRequest`),
 * and the answer is built from the values written instead of being read back.
 */
export async function createDeletionRequest(
  deps: { prisma: Db; keyring: Keyring },
  actor: Actor,
  input: CreateDeletionRequestInput,
  now = new Date(),
) {
  const db = deps.prisma;
  const workspace = await resolveWorkspace(db, actor, input.workspace);
  const given =
    typeof input.receivedAt === 'string'
      ? startOfDayIn(calendarDay(input.receivedAt), workspace.timeZone)
      : input.receivedAt;
  if (given && given.getTime() > now.getTime() + CLOCK_SKEW_MS)
    throw new AppError('BAD_REQUEST', 'receivedAt is in the future; give the time the request was received');
  // Received now (or a moment ahead by the caller's clock): the same as not saying.
  const receivedAt = given && given.getTime() < now.getTime() ? given : null;
  // The override is resolved (a custom name is looked up); the workspace's was read with it. A
  // name that no longer resolves (a policy removed since) may still replay an earlier request.
  const named = input.regulation
    ? await resolveRegulation(db, actor.organizationId, input.regulation).catch((error: unknown) => {
        if (error instanceof AppError) return null;
        throw error;
      })
    : null;
  // The regulation is part of the body an Idempotency-Key is bound to (absent: as before), by
  // the name it resolves to: "gdpr" and "GDPR" are the same body. Keyed (the identifier pepper),
  // like the identifier's own hash: a plain hash of a short identifier can be reversed by
  // guessing. Requests stored before it was keyed have the plain one, and those stored before
  // the name was resolved have the regulation as it was spelled.
  // A time of receipt is part of the body too (absent: as before).
  const received = given ? `\nreceived ${given.toISOString()}` : '';
  const identifiers = await requestIdentifiers(
    deps,
    actor.organizationId,
    { value: input.identifier, type: input.identifierType },
    input.identifiers ?? [],
  );
  // Typed identifiers are part of the body too (a request with the identifier alone: as before).
  const typedPart =
    input.identifierType !== undefined || (input.identifiers?.length ?? 0) > 0
      ? `\nidentifiers ${identifiers.map((i) => i.valueHmac).join(',')}`
      : '';
  const bodyWith = (regulation: string | undefined) =>
    `${workspace.id}\n${input.identifier}${regulation ? `\n${regulation}` : ''}${received}${typedPart}`;
  const body = bodyWith(named?.name ?? input.regulation);
  const spelled = bodyWith(input.regulation);
  const requestHash = identifierHmac(deps.keyring, `request-body\n${body}`);
  // Worked out only when an Idempotency-Key is given.
  const sameBody = () => [requestHash, identifierHmac(deps.keyring, `request-body\n${spelled}`), sha256Hex(spelled)];
  if (input.idempotencyKey) {
    const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, sameBody());
    if (earlier) return { deletionRequest: earlier, replayed: true, existing: false };
  }
  const identifierHash = identifierHmac(deps.keyring, input.identifier);
  if (input.onDuplicate === 'return_existing') {
    const open = await openRequestOf(db, actor, [identifierHash, ...identifiers.map((i) => i.matchHmac)]);
    if (open) return { deletionRequest: open, replayed: false, existing: true };
  }
  const rule =
    named ??
    (input.regulation
      ? await resolveRegulation(db, actor.organizationId, input.regulation)
      : (workspace.regulation ?? (await resolveRegulation(db, actor.organizationId, workspace.regulationName))));
  const dueAt = dueAtFor(rule, receivedAt ?? now, workspace.timeZone);
  const receiptConfirmBy = receiptConfirmByFor(rule.name, receivedAt ?? now);
  // Nothing to run: the outcome is explicit at once instead of a request that never moves.
  const empty = workspace.integrations.length === 0;
  const who = auditActor(actor);
  const row: NewDeletionRequest = {
    id: newId(ID_PREFIX.deletionRequest),
    organizationId: actor.organizationId,
    workspaceId: workspace.id,
    identifier: input.identifier,
    identifierHmac: identifierHash,
    status: empty ? 'FAILED' : 'STAGING',
    statusReason: empty ? NO_INTEGRATIONS_REASON : null,
    channel: actor.via === 'session' ? 'DASHBOARD' : 'API',
    createdByUserId: actor.userId,
    createdByTokenId: actor.tokenId ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    requestHash,
    createdAt: now,
    receivedAt,
    completed: empty,
    regulation: rule.name,
    dueAt,
    receiptConfirmBy,
    lookupsPending: !empty && workspace.hasLookups,
    identifiers,
    integrationRequests: workspace.integrations.map((integration) => ({
      id: newId(ID_PREFIX.integrationRequest),
      integrationId: integration.id,
      integrationName: integration.name,
      integrationType: integration.type,
      configSnapshot: integration.config,
      accountId: integration.accountId,
      consumesType: integration.consumesType,
    })),
    audit: {
      actorType: who.actorType,
      actorId: who.actorId,
      summary: `Deletion request created for ${workspace.integrations.length} integration(s)`,
      details: {
        workspaceId: workspace.id,
        regulation: rule.name,
        dueAt: dueAt.toISOString(),
        ...(receiptConfirmBy ? { receiptConfirmBy: receiptConfirmBy.toISOString() } : {}),
        ...(receivedAt ? { receivedAt: receivedAt.toISOString() } : {}),
        integrations: workspace.integrations.map((i) => ({ id: i.id, name: i.name, type: i.type })),
        // Types and where each came from; the values stay in their own table (masked, purged by retention).
        identifiers: identifiers.map((i) => ({ type: i.type, primary: i.primary, source: i.source })),
      },
    },
  };
  let callbacks = 0;
  try {
    ({ callbacks } = await insertDeletionRequest(db, row));
  } catch (error) {
    // Two concurrent calls with one Idempotency-Key: the loser answers with the winner's request.
    if (input.idempotencyKey && isUniqueViolation(error)) {
      const earlier = await findByIdempotencyKey(db, actor, input.idempotencyKey, sameBody());
      if (earlier) return { deletionRequest: earlier, replayed: true, existing: false };
    }
    // An integration deleted between reading the workspace and writing the snapshot: nothing
    // was written (one statement), and the caller can simply send the request again.
    if ((error as { code?: unknown }).code === '23503') {
      throw new AppError(
        'CONFLICT',
        "The workspace's integrations changed while the request was being created; send it again",
      );
    }
    throw error;
  }
  if (!empty) wakeWorkers(db);
  if (callbacks > 0) wakeCallbackDispatchers(db);
  return { deletionRequest: toDeletionRequestDto(writtenRequest(row)), replayed: false, existing: false };
}

/**
 * The person's most recent open request (not SUCCESS or CANCELED) in the actor's organization
 * (its token's workspaces), matched by any identifier's keyed match hash; null when none.
 */
async function openRequestOf(db: Db, actor: Actor, hashes: string[]) {
  const [open] = await matchingRequests(db, actor, hashes, { openOnly: true, limit: 1 });
  if (!open) return null;
  const row = await db.deletionRequest.findUnique({ where: { id: open.id }, select });
  return row ? toDeletionRequestDto(row) : null;
}

/** `requestHashes`: the body's keyed hash, then its plain hash (requests stored before the hash was keyed). */
async function findByIdempotencyKey(db: Db, actor: Actor, idempotencyKey: string, requestHashes: string[]) {
  const earlier = await db.deletionRequest.findUnique({
    // Scoped to the organization and the token's owner: the same key in another organization is another request.
    where: {
      organizationId_createdByUserId_idempotencyKey: {
        organizationId: actor.organizationId,
        createdByUserId: actor.userId,
        idempotencyKey,
      },
    },
    select,
  });
  if (!earlier) return null;
  // The retention policy removes the body's hash with the identifier: the key alone then decides.
  if (earlier.requestHash !== null && !requestHashes.includes(hashHex(earlier.requestHash))) {
    throw new AppError('UNPROCESSABLE_CONTENT', 'This Idempotency-Key was already used with a different request body');
  }
  return toDeletionRequestDto(earlier);
}
