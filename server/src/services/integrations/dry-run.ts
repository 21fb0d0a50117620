import { postgresConfigSchema } from '@shared/integrations/postgres';
import { AppError } from '../../lib/errors';
import { loadAccountSecrets } from '../../engine/destination';
import { outboundTools, secretValues } from '../../engine/outbound';
import { dryRun } from '../../integrations/postgres/driver';
import { PermanentError, TransientError, type Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';

/** How many rows each rule would change for `identifier`, read-only, before the rules are saved. */
export async function dryRunPostgresRules(deps: AccountDeps, actor: Actor, input: { accountId: string; config: unknown; identifier: string }) {
  const parsed = postgresConfigSchema.safeParse(input.config);
  if (!parsed.success) throw new AppError('BAD_REQUEST', 'Invalid rules', { issues: parsed.error.issues.map((i) => ({ ...i, path: ['config', ...i.path] })) });
  const secrets = await loadAccountSecrets(deps, actor.organizationId, input.accountId).catch((error) => {
    throw error instanceof PermanentError ? new AppError('NOT_FOUND', 'Account not found') : error;
  });
  const trail: Exchange[] = [];
  const tools = outboundTools(deps.policy, trail, secretValues(secrets));
  try {
    const rules = await dryRun({ config: parsed.data, secrets, trail, identifier: input.identifier, resolveHost: tools.resolveHost });
    return { rules, statements: trail.map((t) => (t.kind === 'sql' ? t.statement : '')) };
  } catch (error) {
    if (error instanceof PermanentError || error instanceof TransientError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}
