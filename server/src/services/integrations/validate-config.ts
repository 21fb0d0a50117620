/** An integration's configuration checked at save time: its schema, its outbound URLs, its account, and the destination itself. */
import type { z } from 'zod';
import { integrationTypeInfo } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import type { WebhookConfig } from '@shared/integrations/webhook';
import type { Prisma } from '../../generated/prisma/client';
import { AppError } from '../../lib/errors';
import { assertUrlAllowed, OutboundBlockedError } from '../../lib/ssrf';
import { driverFor } from '../../integrations/registry';
import type { Actor } from '../auth/actor';
import type { AccountDeps } from '../accounts/accounts';
import { withAccount } from './with-account';
import { outboundUrlsOf } from './outbound-urls';
import { PLACEHOLDER } from '../../integrations/runtime/templating';

export interface IntegrationInput {
  name: string;
  type: IntegrationType;
  accountId?: string | null;
  config: unknown;
}

export function parseConfig(type: IntegrationType, config: unknown) {
  const info = integrationTypeInfo[type];
  const parsed = info.configSchema.safeParse(config);
  if (!parsed.success) {
    throw new AppError('BAD_REQUEST', 'Invalid integration configuration', {
      issues: parsed.error.issues.map((i) => ({ ...i, path: ['config', ...i.path] })),
    });
  }
  return { info, config: parsed.data as Record<string, unknown> };
}

/** Every URL the configuration would call passes the SSRF policy; a refused one is reported on its own field. */
export async function assertOutboundUrlsAllowed(
  schema: z.ZodType,
  config: unknown,
  policy: AccountDeps['policy'],
): Promise<void> {
  for (const { url, path } of outboundUrlsOf(schema, config)) {
    try {
      await assertUrlAllowed(url, policy);
    } catch (error) {
      if (!(error instanceof OutboundBlockedError)) throw error;
      throw new AppError('BAD_REQUEST', error.message, {
        issues: [{ path: ['config', ...path], message: error.message }],
      });
    }
  }
}

const WEBHOOK_CALLS = ['initiate', 'status', 'cancel'] as const;

/**
 * A webhook's placeholders name what its calls will have (templating.ts): `{{identifier}}` in
 * every call, `{{trackingId}}` in an async webhook's status and cancel calls (the initiate call
 * is what returns it), and the keys of the attached account. Anything else would fail every
 * request when it runs; it is refused here, on the field that names it.
 */
function webhookPlaceholderIssues(config: WebhookConfig, accountKeys: string[]) {
  const issues: { path: (string | number)[]; message: string }[] = [];
  for (const call of WEBHOOK_CALLS) {
    const spec = config[call];
    if (!spec) continue;
    const fields: [string, (string | number)[]][] = [
      [spec.url, [call, 'url']],
      ...Object.entries(spec.headers).map(([name, value]): [string, (string | number)[]] => [
        value,
        [call, 'headers', name],
      ]),
      ...(spec.body ? [[spec.body, [call, 'body']] as [string, (string | number)[]]] : []),
    ];
    for (const [text, path] of fields)
      for (const [, name] of text.matchAll(PLACEHOLDER)) {
        if (name === 'identifier' || accountKeys.includes(name!)) continue;
        if (name === 'trackingId' && call !== 'initiate' && config.mode === 'async') continue;
        const message =
          name === 'trackingId'
            ? call === 'initiate'
              ? '{{trackingId}} is what the initiate call returns: use it in the status and cancel calls'
              : '{{trackingId}} is only known to an async webhook (its initiate call returns it)'
            : `{{${name}}} is not known here: use {{identifier}}${call === 'initiate' || config.mode !== 'async' ? '' : ', {{trackingId}}'} or a key of the attached account (${accountKeys.length ? accountKeys.join(', ') : 'none attached'})`;
        issues.push({ path: ['config', ...path], message });
      }
  }
  return issues;
}

/** Everything that makes a configuration unusable is found at save time, with the field to fix. */
export async function validateForSave(deps: AccountDeps, actor: Actor, input: IntegrationInput) {
  const { info, config } = parseConfig(input.type, input.config);
  const accountId: string | null = input.accountId ?? null;
  let accountKeys: string[] = [];
  if (accountId) {
    const account = await deps.prisma.account.findFirst({
      where: { id: accountId, organizationId: actor.organizationId },
      select: { integrationType: true, type: true, secretHints: true },
    });
    if (!account)
      throw new AppError('NOT_FOUND', 'Account not found', {
        issues: [{ path: ['accountId'], message: 'Account not found' }],
      });
    if (account.integrationType !== input.type || !info.accountTypes.includes(account.type)) {
      throw new AppError('BAD_REQUEST', `That account is for ${account.integrationType}, not ${input.type}`, {
        issues: [{ path: ['accountId'], message: 'Wrong kind of account' }],
      });
    }
    accountKeys = Object.keys((account.secretHints as Record<string, unknown> | null) ?? {});
  } else if (info.accountRequired) {
    throw new AppError('BAD_REQUEST', `${info.label} integrations need an account`, {
      issues: [{ path: ['accountId'], message: 'Choose or create an account' }],
    });
  }
  if (input.type === 'WEBHOOK') {
    const issues = webhookPlaceholderIssues(config as WebhookConfig, accountKeys);
    if (issues.length > 0) throw new AppError('BAD_REQUEST', issues[0]!.message, { issues });
  }
  await assertOutboundUrlsAllowed(info.configSchema, config, deps.policy);
  // Checks against the destination itself (a database's live schema), when the driver has them.
  const driver = driverFor(input.type);
  if (driver.validateConfig && accountId) {
    const { result: issues } = await withAccount(
      deps,
      actor,
      accountId,
      config,
      (ctx) => driver.validateConfig!(ctx),
      driver,
    );
    if (issues.length > 0)
      throw new AppError('BAD_REQUEST', issues[0]!.message, {
        issues: issues.map((i) => ({ ...i, path: ['config', ...i.path] })),
      });
  }
  return { config: config as Prisma.InputJsonValue, accountId };
}
