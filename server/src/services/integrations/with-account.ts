import { storedIntegrationType } from '@shared/integrations/connectors';
import { AppError } from '../../lib/errors';
import { driverFor } from '../../integrations/registry';
import { adminContext } from '../../integrations/runtime/driver-context';
import { PermanentError, type AdminContext, type Driver, type Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';
import { openAccount } from '../accounts/secrets';
import { destinationFailure } from './destination-failure';

/**
 * Runs a driver's admin operation with an account of the actor's organization (another
 * organization's, or a deleted, account is "not found", as everywhere else). A problem
 * reaching the destination is the user's to fix: a 422 naming the destination and its reason.
 */
export async function withAccount<T>(
  deps: AccountDeps,
  actor: Actor,
  accountId: string,
  config: unknown,
  run: (ctx: AdminContext, driver: Driver) => Promise<T>,
  driver?: Driver,
): Promise<{ result: T; trail: Exchange[] }> {
  const account = await deps.prisma.account.findFirst({
    where: { id: accountId, organizationId: actor.organizationId },
    select: { integrationType: true },
  });
  if (!account) throw new AppError('NOT_FOUND', 'Account not found');
  const opened = await openAccount(deps, actor.organizationId, accountId).catch((error) => {
    throw error instanceof PermanentError ? new AppError('NOT_FOUND', 'Account not found') : error;
  });
  const used = driver ?? driverFor(storedIntegrationType(account.integrationType));
  const trail: Exchange[] = [];
  try {
    const ctx = adminContext(deps, { driver: used, config, secrets: opened.secrets, accountType: opened.type }, trail);
    return { result: await run(ctx, used), trail };
  } catch (error) {
    throw destinationFailure(error, opened.secrets);
  }
}
