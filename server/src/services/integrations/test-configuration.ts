/**
 * "Test connection" before an integration is saved: its configuration as the form holds it,
 * with a saved account or credentials typed in the form, and optionally a trial run of the
 * destination's dry run for a test identifier. Nothing is written, and the test identifier
 * is neither stored nor logged: it is blanked out of everything answered.
 */
import { integrationTypeInfo, type AccountType } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import { AppError } from '../../lib/errors';
import { errorForLog } from '../../lib/logger';
import { driverFor } from '../../integrations/registry';
import { adminContext } from '../../integrations/runtime/driver-context';
import { destinationRedactor, identifierRedactor } from '../../integrations/runtime/redaction';
import type { AdminContext, Driver, DryRunResult, Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import { assertAccountFits, validateSecrets, type AccountDeps } from '../accounts/accounts';
import { destinationHost } from './destination-failure';
import { hostOfUrls } from './outbound-urls';
import { assertOutboundUrlsAllowed, parseConfig } from './validate-config';
import { withAccount } from './with-account';

export interface UnsavedConfigurationTest {
  type: IntegrationType;
  config: unknown;
  /** A saved account of the organization, or `account`: credentials not saved yet. */
  accountId?: string | null;
  account?: { type: AccountType; secrets: unknown } | null;
  /** Counted with the driver's dry run, never changed; drivers without one say so. */
  trialIdentifier?: string | null;
}

type Trial =
  | { offered: false; message: string }
  | { offered: true; ok: true; rules: Omit<DryRunResult['rules'][number], 'sample'>[] }
  | { offered: true; ok: false; message: string };

export interface ConfigurationTestResult {
  ok: boolean;
  /** The destination's own words (secrets and the test identifier blanked out). */
  message: string;
  /** Where the test connected: host and port, or the host of the URL called. */
  host: string | null;
  trial: Trial | null;
}

export async function testUnsavedConfiguration(
  deps: AccountDeps,
  actor: Actor,
  input: UnsavedConfigurationTest,
): Promise<ConfigurationTestResult> {
  const driver = driverFor(input.type);
  const { info, config } = configToTest(driver, input);
  // The URLs the form holds pass the same outbound policy as at save time (and each call is checked again).
  await assertOutboundUrlsAllowed(info.configSchema, config, deps.policy);
  const urlHost = hostOfUrls(info.configSchema, config);
  if (input.accountId) {
    const account = await deps.prisma.account.findFirst({
      where: { id: input.accountId, organizationId: actor.organizationId },
      select: { integrationType: true, type: true },
    });
    if (!account)
      throw new AppError('NOT_FOUND', 'Account not found', {
        issues: [{ path: ['accountId'], message: 'Account not found' }],
      });
    if (account.integrationType !== input.type || !info.accountTypes.includes(account.type))
      throw new AppError('BAD_REQUEST', `That account is for ${account.integrationType}, not ${input.type}`, {
        issues: [{ path: ['accountId'], message: 'Wrong kind of account' }],
      });
    const { result } = await withAccount(
      deps,
      actor,
      input.accountId,
      config,
      (ctx) => runTest(deps, driver, ctx, account.type, input.trialIdentifier ?? null, urlHost),
      driver,
    );
    return result;
  }
  let secrets: Record<string, unknown> | null = null;
  let accountType: AccountType | null = null;
  if (input.account) {
    assertAccountFits(input.type, input.account.type);
    secrets = await validateSecrets(deps, input.account.type, input.account.secrets);
    accountType = input.account.type;
  } else if (info.accountRequired) {
    throw new AppError('BAD_REQUEST', `${info.label} integrations need an account to test`, {
      issues: [{ path: ['accountId'], message: 'Choose an account, or enter the new one’s credentials' }],
    });
  }
  const trail: Exchange[] = [];
  const ctx = adminContext(deps, { driver, config, secrets, accountType }, trail);
  return runTest(deps, driver, ctx, accountType, input.trialIdentifier ?? null, urlHost);
}

/**
 * The configuration to test with. Data stores (drivers that discover what an account reaches)
 * connect with the account alone: before any rule is written (the rule builder needs a saved
 * account), their connection is tested all the same; a trial run needs valid rules.
 */
function configToTest(driver: Driver, input: UnsavedConfigurationTest) {
  try {
    return parseConfig(input.type, input.config);
  } catch (error) {
    if (!driver.discover || input.trialIdentifier) throw error;
    return { info: integrationTypeInfo[input.type], config: null };
  }
}

async function runTest(
  deps: AccountDeps,
  driver: Driver,
  ctx: AdminContext,
  accountType: AccountType | null,
  trialIdentifier: string | null,
  urlHost: string | null,
): Promise<ConfigurationTestResult> {
  const redactSecrets = destinationRedactor({ accountType, secrets: ctx.secrets });
  const subject = identifierRedactor(trialIdentifier);
  const redact = (text: string) => subject(redactSecrets(text));
  const host = destinationHost(ctx.secrets) ?? urlHost;
  let connection: { ok: boolean; message: string };
  try {
    connection = await driver.testConnection(ctx);
  } catch (error) {
    connection = { ok: false, message: (error as Error).message };
  }
  const result: ConfigurationTestResult = { ok: connection.ok, message: redact(connection.message), host, trial: null };
  if (!trialIdentifier) return result;
  if (!driver.dryRun) {
    result.trial = { offered: false, message: 'This destination has no dry run: nothing was counted' };
    return result;
  }
  if (!connection.ok) {
    result.trial = { offered: true, ok: false, message: 'Not run: the connection failed' };
    return result;
  }
  try {
    const counted = await driver.dryRun({ ...ctx, identifier: trialIdentifier });
    result.trial = {
      offered: true,
      ok: true,
      rules: counted.rules.map(({ sample: _keys, ...rule }) => ({
        ...rule,
        rule: redact(rule.rule),
        table: redact(rule.table),
      })),
    };
  } catch (error) {
    const message = redact((error as Error).message);
    deps.log.warn({ err: errorForLog(error, redact) }, 'trial run of an unsaved integration failed');
    result.trial = { offered: true, ok: false, message };
  }
  return result;
}
