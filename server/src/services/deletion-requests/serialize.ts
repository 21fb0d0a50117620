import { storedIntegrationType } from '@shared/integrations/connectors';
import {
  REDACTED_IDENTIFIER,
  type DeletionRequestDto,
  type IntegrationRequestDto,
} from '@shared/schemas/deletion-request';
import { CANCEL_REASONS, closedNotFulfilled, type CancelReason } from '@shared/cancel-reasons';
import type { Prisma } from '../../generated/prisma/client';
import { shownTrackingId } from '../integrations/tracked-jobs';

export const integrationRequestSelect = {
  id: true,
  integrationId: true,
  integrationName: true,
  integrationType: true,
  status: true,
  attempts: true,
  trackingId: true,
  lastError: true,
  nextAttemptAt: true,
  createdAt: true,
  updatedAt: true,
  completedAt: true,
} satisfies Prisma.IntegrationRequestSelect;

export const deletionRequestSelect = {
  id: true,
  organizationId: true,
  workspaceId: true,
  identifier: true,
  hashed: true,
  status: true,
  statusReason: true,
  channel: true,
  createdByUserId: true,
  createdAt: true,
  receivedAt: true,
  updatedAt: true,
  completedAt: true,
  regulation: true,
  dueAt: true,
  dueExtendedAt: true,
  receiptConfirmBy: true,
  receiptConfirmedAt: true,
  cancelReason: true,
  cancelNote: true,
} satisfies Prisma.DeletionRequestSelect;

type IntegrationRequestRow = Prisma.IntegrationRequestGetPayload<{ select: typeof integrationRequestSelect }>;
type DeletionRequestRow = Prisma.DeletionRequestGetPayload<{ select: typeof deletionRequestSelect }> & {
  integrationRequests?: IntegrationRequestRow[];
};

// The column's CHECK constraint holds the same list; this narrows the type.
const isCancelReason = (value: string | null): value is CancelReason =>
  (CANCEL_REASONS as readonly (string | null)[]).includes(value);

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toIntegrationRequestDto(row: IntegrationRequestRow): IntegrationRequestDto {
  return {
    id: row.id,
    integrationId: row.integrationId,
    name: row.integrationName,
    type: storedIntegrationType(row.integrationType),
    status: row.status,
    attempts: row.attempts,
    trackingId: shownTrackingId(row.trackingId),
    lastError: row.lastError,
    nextAttemptAt: iso(row.nextAttemptAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: iso(row.completedAt),
  };
}

/** One shape for a deletion request everywhere; a hashed identifier is redacted unless asked for. */
export function toDeletionRequestDto(
  row: DeletionRequestRow,
  options: { fetchHashed?: boolean } = {},
): DeletionRequestDto {
  const identifier =
    row.hashed && (options.fetchHashed ?? true) && row.identifier !== null ? REDACTED_IDENTIFIER : row.identifier;
  return {
    id: row.id,
    organizationId: row.organizationId,
    workspaceId: row.workspaceId,
    identifier,
    hashed: row.hashed,
    status: row.status,
    // A canceled request says it was closed without being fulfilled, and why.
    statusReason:
      row.statusReason ?? (row.status === 'CANCELED' ? closedNotFulfilled(row.cancelReason, row.cancelNote) : null),
    channel: row.channel,
    createdByUserId: row.createdByUserId,
    createdAt: row.createdAt.toISOString(),
    receivedAt: (row.receivedAt ?? row.createdAt).toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: iso(row.completedAt),
    regulation: row.regulation,
    dueAt: iso(row.dueAt),
    dueExtendedAt: iso(row.dueExtendedAt),
    receiptConfirmBy: iso(row.receiptConfirmBy),
    receiptConfirmedAt: iso(row.receiptConfirmedAt),
    cancelReason: isCancelReason(row.cancelReason) ? row.cancelReason : null,
    cancelNote: row.cancelNote,
    ...(row.integrationRequests ? { integrationRequests: row.integrationRequests.map(toIntegrationRequestDto) } : {}),
  };
}
