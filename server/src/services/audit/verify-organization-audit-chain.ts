import type { Db } from '../../db/client';
import type { Actor } from '../auth/actor';
import { verifyAuditChain } from './audit-chain';

export interface AuditChainStatus {
  /** True when every sealed entry of the organization links to the one before it and matches its content. */
  ok: boolean;
  /** Sealed entries that verified, in chain order (all of them when ok; those before the break otherwise). */
  verifiedEntries: number;
  /** Entries written but not yet linked into the chain by the sealer: not covered by this check. */
  unsealedEntries: number;
  /** Oldest entries dropped with their months by the audit log retention: the chain verifies from where it now starts. */
  droppedEntries: number;
  /** The first entry that does not verify; null exactly when ok. */
  firstBreak: { entryId: string; chainSeq: string; reason: string } | null;
  checkedAt: string;
}

/**
 * Verifies the actor's organization's audit chain only: the walk, the counts and the break
 * are all scoped to it, so nobody learns anything about another organization's entries.
 * Read-only: sealing stays with the workers' scheduler, so new entries show as unsealed.
 */
export async function verifyOrganizationAuditChain(
  db: Db,
  actor: Pick<Actor, 'organizationId'>,
): Promise<AuditChainStatus> {
  const report = await verifyAuditChain(db, { organizationId: actor.organizationId });
  const broken = report.breaks.find((b) => b.organizationId === actor.organizationId);
  return {
    ok: !broken,
    verifiedEntries: report.verifiedEntries,
    unsealedEntries: report.unsealedEntries,
    droppedEntries: report.droppedEntries,
    firstBreak: broken ? { entryId: broken.entryId, chainSeq: broken.chainSeq, reason: broken.reason } : null,
    checkedAt: new Date().toISOString(),
  };
}
