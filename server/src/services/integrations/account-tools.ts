/** What the rule builder asks of an account before an integration is saved: what it can reach, and a dry run. */
import { integrationTypeInfo } from '@shared/integrations';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';
import { parseConfig } from './validate-config';
import { withAccount } from './with-account';

/** What an account can reach (tables and columns), for the rule builder of its integration type. */
export async function discoverWithAccount(deps: AccountDeps, actor: Actor, accountId: string) {
  const { result } = await withAccount(deps, actor, accountId, null, (ctx, driver) => {
    if (!driver.discover)
      throw new AppError('BAD_REQUEST', `${integrationTypeInfo[driver.type].label} accounts have nothing to discover`);
    return driver.discover(ctx);
  });
  return result;
}

/** What a deletion of `identifier` would change with a configuration not saved yet, read-only. */
export async function dryRunWithAccount(
  deps: AccountDeps,
  actor: Actor,
  input: { accountId: string; config: unknown; identifier: string },
) {
  const { result } = await withAccount(deps, actor, input.accountId, null, async (ctx, driver) => {
    if (!driver.dryRun)
      throw new AppError('BAD_REQUEST', `${integrationTypeInfo[driver.type].label} integrations offer no dry run`);
    const { config } = parseConfig(driver.type, input.config);
    return driver.dryRun({ ...ctx, config, identifier: input.identifier });
  });
  return result;
}
