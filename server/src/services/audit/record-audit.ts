import type { DbOrTx } from '../../db/client';
import { storableValue } from '../../db/storable';
import type { Prisma } from '../../generated/prisma/client';
import type { Actor } from '../auth/actor';
import { storedDetails } from './recorded-exchanges';

export interface AuditEntry {
  organizationId: string;
  action: string;
  summary: string;
  outcome?: string;
  deletionRequestId?: string;
  integrationRequestId?: string;
  details?: Prisma.InputJsonValue;
}

/** Who did it, for the audit log: a user (through the dashboard, a PAT or the CLI) or the system. */
export function auditActor(actor: Actor | null): { actorType: string; actorId: string | null } {
  if (!actor) return { actorType: 'system', actorId: null };
  return {
    actorType: actor.via === 'pat' ? 'user:pat' : actor.via === 'cli' ? 'user:cli' : 'user:dashboard',
    actorId: actor.userId,
  };
}

export async function recordAudit(db: DbOrTx, actor: Actor | null, entry: AuditEntry): Promise<void> {
  // Bulky details (a cancel's calls to the destination) are stored compressed.
  const { details, packed } = storedDetails(entry.details);
  await db.auditLog.create({
    data: {
      ...storableValue({ ...auditActor(actor), ...entry, details: details as Prisma.InputJsonValue | undefined }),
      ...(packed ? { exchanges: new Uint8Array(packed) } : {}),
    },
  });
}
