/** What the rule builder asks of an account before an integration is saved: what it can reach, and a dry run. */
import { integrationTypeInfo } from '@shared/integrations';
import { proposeRules, referencingTables } from '@shared/integrations/foreign-keys';
import { AppError } from '../../lib/errors';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';
import { parseConfig } from './validate-config';
import { withAccount } from './with-account';

/** What an account can reach (tables and columns), for the rule builder of its integration type. */
export async function discoverWithAccount(deps: AccountDeps, actor: Actor, accountId: string, config: unknown = null) {
  const { result } = await withAccount(deps, actor, accountId, config, (ctx, driver) => {
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

/**
 * Every table that references `table` through foreign keys, recursively, each key with its ON
 * DELETE behaviour, and a rule proposed for each: what the rule builder shows when a table is
 * chosen (and what a team configuring by API can read).
 */
export async function foreignKeyGraphWithAccount(
  deps: AccountDeps,
  actor: Actor,
  input: { accountId: string; schema: string; table: string },
) {
  const tables = await discoverWithAccount(deps, actor, input.accountId);
  const root = tables.find((t) => t.schema === input.schema && t.table === input.table);
  if (!root)
    throw new AppError('BAD_REQUEST', `Table ${input.schema}.${input.table} does not exist or is not visible`, {
      issues: [{ path: ['table'], message: 'Table not found' }],
    });
  const referencing = referencingTables(tables, root);
  return {
    schema: root.schema,
    table: root.table,
    referencing: referencing.map((r) => ({ ...r, onDelete: r.foreignKey.onDelete })),
    proposals: proposeRules(tables, referencing).map((p) => ({
      schema: p.referencing.schema,
      table: p.referencing.table,
      foreignKey: p.referencing.foreignKey.name,
      onDelete: p.referencing.foreignKey.onDelete,
      via: p.referencing.via,
      action: p.action,
      columns: p.columns,
      reason: p.reason,
    })),
  };
}
