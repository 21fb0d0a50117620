import type { DbOrTx } from '../../db/client';
import { AppError } from '../../lib/errors';

/**
 * Refuses a change that would leave the organization without an owner. The owners' rows are
 * locked first, so two owners demoting each other at once cannot both succeed.
 */
export async function assertAnotherOwnerRemains(tx: DbOrTx, organizationId: string, userId: string): Promise<void> {
  const owners = await tx.$queryRaw<{ userId: string }[]>`
    SELECT "userId" FROM "Membership" WHERE "organizationId" = ${organizationId} AND role = 'OWNER' FOR UPDATE`;
  if (!owners.some((o) => o.userId !== userId)) {
    throw new AppError('CONFLICT', 'An organization needs at least one owner: make another member an owner first');
  }
}
