import { NO_IDENTIFIER_OF_TYPE } from '@shared/identifiers';
import { sign } from 'node:crypto';
import { cancelReasonText, CLOSED_NOT_FULFILLED } from '@shared/cancel-reasons';
import type { Db } from '../../db/client';
import { identifierRedactor, redactDeep } from '../../integrations/runtime/redaction';
import { hashHex, type Keyring } from '../../lib/crypto';
import { AppError, notFound } from '../../lib/errors';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { digestHex } from '../audit/audit-chain';
import { STEP_AUDIT_ACTIONS } from '@shared/audit-actions';
import { recordedDetails } from '../audit/recorded-exchanges';
import { canonicalJson, wellFormed } from './canonical-json';
import { signingKeyFor } from './signing-key';
import { shownTrackingId } from '../integrations/tracked-jobs';
import type { SignedCertificate } from './verify-certificate';

const FINAL = ['SUCCESS', 'FAILED', 'ERROR', 'CANCELED'];
const STORE_TYPES = new Set(['POSTGRES', 'MYSQL', 'REDIS', 'S3', 'DYNAMODB', 'SNOWFLAKE', 'BIGQUERY']);

type Evidence = Record<string, unknown>;

const storedEvidence = (value: unknown): Evidence | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Evidence) : null;

/** What one destination proved: rows changed and the verification for stores; task ids and final statuses for vendors. */
function destinationEvidence(type: string, evidence: Evidence | null) {
  if (!evidence) return { recorded: false as const };
  if (STORE_TYPES.has(type)) {
    const remaining = (evidence.remaining ?? {}) as Record<string, number>;
    return {
      recorded: true as const,
      rowsChanged: evidence.changed ?? null,
      verification: {
        remainingMatchingRows: remaining,
        passed: Object.values(remaining).every((n) => Number(n) === 0),
      },
      // What the store still keeps after the deletion (Snowflake's Time Travel, BigQuery's time travel, then fail-safe), in its own words.
      ...(evidence.timeTravel ? { retainedBy: evidence.timeTravel } : {}),
    };
  }
  return { recorded: true as const, vendor: evidence };
}

/**
 * The certificate of deletion of a finished request, signed with the organization's Ed25519
 * key. It names the subject only by the identifier's keyed hash (HMAC-SHA256 with the
 * service's secret pepper), so it can be kept after retention removed the identifier, and it
 * anchors itself in the organization's tamper-evident audit chain.
 */
export async function buildCertificate(
  db: Db,
  keyring: Keyring,
  actor: Pick<Actor, 'organizationId' | 'workspaceIds'>,
  deletionRequestId: string,
  now = new Date(),
): Promise<SignedCertificate> {
  const request = await db.deletionRequest.findFirst({
    where: { id: deletionRequestId, organizationId: actor.organizationId },
    select: {
      id: true,
      status: true,
      identifier: true,
      identifierHmac: true,
      purgedAt: true,
      regulation: true,
      dueAt: true,
      dueExtendedAt: true,
      receiptConfirmBy: true,
      receiptConfirmedAt: true,
      cancelReason: true,
      cancelNote: true,
      createdAt: true,
      receivedAt: true,
      completedAt: true,
      workspace: { select: { id: true, name: true } },
      organization: { select: { id: true, name: true } },
      integrationRequests: {
        orderBy: { createdAt: 'asc' },
        select: {
          id: true,
          integrationName: true,
          integrationType: true,
          status: true,
          trackingId: true,
          attempts: true,
          createdAt: true,
          startedAt: true,
          completedAt: true,
          reverifiedAt: true,
          reappearedAt: true,
          evidence: true,
          consumesType: true,
          lastError: true,
        },
      },
      identifiers: {
        where: { primary: false },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { type: true, source: true, matchHmac: true, value: true },
      },
    },
  });
  if (!request) throw notFound('Deletion request');
  assertWorkspaceAllowed(actor, request.workspace.id);
  if (!FINAL.includes(request.status))
    throw new AppError(
      'CONFLICT',
      `The request is still ${request.status}; a certificate is issued once it has finished`,
    );

  // Evidence is kept on the integration request. One that succeeded without it (finished by a
  // process of the previous version during an upgrade) still has it in its audit payload, unless
  // retention removed it.
  const missing = request.integrationRequests
    .filter((ir) => ir.status === 'SUCCESS' && !storedEvidence(ir.evidence))
    .map((ir) => ir.id);
  const fromAudit = new Map<string, Evidence>();
  if (missing.length > 0) {
    const entries = await db.auditLog.findMany({
      where: {
        organizationId: actor.organizationId,
        deletionRequestId,
        integrationRequestId: { in: missing },
        outcome: 'SUCCESS',
        action: { in: STEP_AUDIT_ACTIONS },
      },
      orderBy: { id: 'asc' },
      select: { integrationRequestId: true, details: true, exchanges: true },
    });
    for (const entry of entries) {
      const details = recordedDetails(entry.details, entry.exchanges) as { evidence?: unknown } | null;
      const evidence = storedEvidence(details?.evidence);
      if (evidence && entry.integrationRequestId) fromAudit.set(entry.integrationRequestId, evidence);
    }
  }
  const [head, lastOwn] = await Promise.all([
    // The chain's head as the sealer recorded it, read as the entry holds it.
    db.auditChainHead
      .findUnique({ where: { organizationId: actor.organizationId }, select: { entryId: true } })
      .then((recorded) =>
        recorded
          ? db.auditLog.findUnique({
              where: { organizationId_id: { organizationId: actor.organizationId, id: recorded.entryId } },
              select: { chainSeq: true, hash: true, createdAt: true },
            })
          : null,
      ),
    db.auditLog.findFirst({
      where: { organizationId: actor.organizationId, deletionRequestId, chainSeq: { not: null } },
      orderBy: { chainSeq: 'desc' },
      select: { chainSeq: true, hash: true },
    }),
  ]);
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  // What a destination returned (its task id, its evidence) can repeat the identifier it was
  // sent: blanked out as in the audit trail's summaries, so the signed document never names the subject.
  const redact = identifierRedactor([
    ...(request.identifier ? [request.identifier] : []),
    ...request.identifiers.flatMap((identifier) => (identifier.value ? [identifier.value] : [])),
  ]);
  // A certificate of deletion only for a request that succeeded everywhere and whose data
  // re-verification has not found again; anything else is a signed deletion report.
  const dataReappeared = request.integrationRequests.some((ir) => ir.reappearedAt !== null);
  const certificate = {
    type: request.status === 'SUCCESS' && !dataReappeared ? 'certificate-of-deletion' : 'deletion-report',
    ...(dataReappeared ? { dataReappeared: true } : {}),
    version: 1,
    issuedAt: now.toISOString(),
    issuer: { organizationId: request.organization.id, organizationName: request.organization.name },
    deletionRequest: {
      id: request.id,
      status: request.status,
      workspace: { id: request.workspace.id, name: request.workspace.name },
      // After the retention policy deleted the identifier, no hash of it is kept either: the
      // certificate says so rather than sign a placeholder as a hash.
      subject: request.purgedAt
        ? { identifierRemoved: { by: 'retention policy', at: request.purgedAt.toISOString() } }
        : {
            identifierHash: {
              algorithm: 'HMAC-SHA256',
              keyedWith: 'service identifier pepper',
              value: hashHex(request.identifierHmac),
            },
            // The person's other identifiers, by type, source and keyed hash: never a value.
            ...(request.identifiers.length > 0
              ? {
                  otherIdentifiers: request.identifiers.map((identifier) => ({
                    type: identifier.type,
                    source: identifier.source === 'request' ? 'given with the request' : `lookup: ${identifier.source}`,
                    hash: {
                      algorithm: 'HMAC-SHA256',
                      keyedWith: 'service identifier pepper',
                      value: hashHex(identifier.matchHmac),
                    },
                  })),
                }
              : {}),
          },
      regulation: request.regulation,
      receivedAt: (request.receivedAt ?? request.createdAt).toISOString(),
      dueAt: iso(request.dueAt),
      dueExtendedAt: iso(request.dueExtendedAt),
      receiptConfirmBy: iso(request.receiptConfirmBy),
      receiptConfirmedAt: iso(request.receiptConfirmedAt),
      completedAt: iso(request.completedAt),
      // A canceled request was closed without being fulfilled: the certificate says so, with why.
      ...(request.status === 'CANCELED'
        ? {
            closed: {
              outcome: CLOSED_NOT_FULFILLED,
              reason: request.cancelReason,
              reasonText: cancelReasonText(request.cancelReason, request.cancelNote),
            },
          }
        : {}),
    },
    destinations: request.integrationRequests.map((ir) => ({
      integrationRequestId: ir.id,
      name: ir.integrationName,
      type: ir.integrationType,
      ...(ir.consumesType ? { identifierType: ir.consumesType } : {}),
      finalStatus: ir.status,
      // Nothing was sent: the request had no identifier of the type this destination takes.
      ...(ir.lastError?.startsWith(NO_IDENTIFIER_OF_TYPE) ? { noIdentifierOfType: ir.consumesType } : {}),
      vendorTaskId: ir.trackingId === null ? null : redact(shownTrackingId(ir.trackingId)),
      attempts: ir.attempts,
      requestedAt: ir.createdAt.toISOString(),
      startedAt: iso(ir.startedAt),
      completedAt: iso(ir.completedAt),
      reverifiedAt: iso(ir.reverifiedAt),
      reappearedAt: iso(ir.reappearedAt),
      evidence: redactDeep(
        destinationEvidence(ir.integrationType, storedEvidence(ir.evidence) ?? fromAudit.get(ir.id) ?? null),
        redact,
      ),
    })),
    auditChain: {
      head: head
        ? { chainSeq: head.chainSeq!.toString(), hash: digestHex(head.hash), sealedAt: head.createdAt.toISOString() }
        : null,
      lastEntryOfRequest: lastOwn ? { chainSeq: lastOwn.chainSeq!.toString(), hash: digestHex(lastOwn.hash) } : null,
    },
  };
  // RFC 8785 signs I-JSON only: a name or a destination's text cut inside an emoji is signed with U+FFFD there.
  const signable = redactDeep(certificate, wellFormed) as typeof certificate;
  const key = await signingKeyFor(db, keyring, actor.organizationId);
  const value = sign(null, Buffer.from(canonicalJson(signable), 'utf8'), key.privateKey).toString('base64');
  return { certificate: signable, signature: { algorithm: 'Ed25519', keyId: key.id, publicKey: key.publicKey, value } };
}
