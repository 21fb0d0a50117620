import { integrationTypeInfo } from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { assertUrlAllowed, OutboundBlockedError } from '../../lib/ssrf';
import { driverFor } from '../../integrations/registry';
import { adminContext } from '../../integrations/runtime/driver-context';
import {
  PermanentError,
  TransientError,
  type AdminContext,
  type Driver,
  type Exchange,
} from '../../integrations/types';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { getWorkspace } from '../workspaces/workspaces';
import type { AccountDeps } from '../accounts/accounts';
import { openAccount } from '../accounts/secrets';
import { loadDestinationForUser } from './destination';
import { destinationRedactor } from '../../integrations/runtime/redaction';

export const integrationSelect = {
  id: true,
  workspaceId: true,
  name: true,
  type: true,
  config: true,
  enabled: true,
  accountId: true,
  createdAt: true,
  updatedAt: true,
  account: { select: { id: true, name: true, type: true } },
} satisfies Prisma.IntegrationSelect;

export interface IntegrationInput {
  name: string;
  type: IntegrationType;
  accountId?: string | null;
  config: unknown;
}

function parseConfig(type: IntegrationType, config: unknown) {
  const info = integrationTypeInfo[type];
  const parsed = info.configSchema.safeParse(config);
  if (!parsed.success) {
    throw new AppError('BAD_REQUEST', 'Invalid integration configuration', {
      issues: parsed.error.issues.map((i) => ({ ...i, path: ['config', ...i.path] })),
    });
  }
  return { info, config: parsed.data as Record<string, unknown> };
}

/** URLs in a configuration that calls will go to (placeholders filled with a harmless value). */
function outboundUrls(value: unknown, path: (string | number)[] = []): { url: string; path: (string | number)[] }[] {
  const key = String(path.at(-1) ?? '');
  if (typeof value === 'string')
    return /url$/i.test(key) && /^https?:\/\//i.test(value)
      ? [{ url: value.replace(/\{\{[^}]*\}\}/g, 'placeholder'), path }]
      : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => outboundUrls(v, [...path, i]));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => outboundUrls(v, [...path, k]));
  return [];
}

/** Every URL the configuration would call passes the SSRF policy; a refused one is reported on its own field. */
async function assertOutboundUrlsAllowed(config: unknown, policy: AccountDeps['policy']): Promise<void> {
  for (const { url, path } of outboundUrls(config)) {
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

/**
 * Runs a driver's admin operation with an account of the actor's organization (another
 * organization's, or a deleted, account is "not found", as everywhere else). A problem
 * reaching the destination is the user's to fix: a 400 with its reason.
 */
async function withAccount<T>(
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
  const used = driver ?? driverFor(account.integrationType);
  const trail: Exchange[] = [];
  try {
    const ctx = adminContext(deps, { driver: used, config, secrets: opened.secrets, accountType: opened.type }, trail);
    return { result: await run(ctx, used), trail };
  } catch (error) {
    if (error instanceof PermanentError || error instanceof TransientError)
      throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}

/** Everything that makes a configuration unusable is found at save time, with the field to fix. */
async function validateForSave(deps: AccountDeps, actor: Actor, input: IntegrationInput) {
  const { info, config } = parseConfig(input.type, input.config);
  const accountId: string | null = input.accountId ?? null;
  if (accountId) {
    const account = await deps.prisma.account.findFirst({
      where: { id: accountId, organizationId: actor.organizationId },
      select: { integrationType: true, type: true },
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
  } else if (info.accountRequired) {
    throw new AppError('BAD_REQUEST', `${info.label} integrations need an account`, {
      issues: [{ path: ['accountId'], message: 'Choose or create an account' }],
    });
  }
  await assertOutboundUrlsAllowed(config, deps.policy);
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

export async function getIntegration(db: Db, actor: Actor, integrationId: string) {
  const integration = await db.integration.findFirst({
    where: { id: integrationId, workspace: { organizationId: actor.organizationId } },
    select: integrationSelect,
  });
  if (!integration) throw notFound('Integration');
  return integration;
}

export async function listIntegrations(db: Db, actor: Actor, filter: { workspaceId?: string }) {
  return db.integration.findMany({
    where: {
      workspace: { organizationId: actor.organizationId },
      ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}),
    },
    select: integrationSelect,
    orderBy: { createdAt: 'asc' },
  });
}

export async function createIntegration(
  deps: AccountDeps,
  actor: Actor,
  input: IntegrationInput & { workspaceId: string; enabled?: boolean },
) {
  await getWorkspace(deps.prisma, actor, input.workspaceId);
  const { config, accountId } = await validateForSave(deps, actor, input);
  const id = newId(ID_PREFIX.integration);
  return deps.prisma.$transaction(async (tx) => {
    const integration = await tx.integration.create({
      data: {
        id,
        workspaceId: input.workspaceId,
        name: input.name,
        type: input.type,
        config,
        accountId,
        enabled: input.enabled ?? true,
      },
      select: integrationSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'integration.created',
      summary: `${input.type} integration "${input.name}" created`,
      details: { integrationId: id, workspaceId: input.workspaceId, accountId },
    });
    return integration;
  });
}

/** Changes name, configuration and/or account; a new account is a credential swap, audited as such. */
export async function updateIntegration(
  deps: AccountDeps,
  actor: Actor,
  input: { integrationId: string; name?: string; config?: unknown; accountId?: string | null },
) {
  const current = await getIntegration(deps.prisma, actor, input.integrationId);
  const merged: IntegrationInput = {
    name: input.name ?? current.name,
    type: current.type,
    config: input.config ?? current.config,
    accountId: input.accountId !== undefined ? input.accountId : current.accountId,
  };
  const { config, accountId } = await validateForSave(deps, actor, merged);
  return deps.prisma.$transaction(async (tx) => {
    const integration = await tx.integration.update({
      where: { id: current.id },
      data: { name: merged.name, config, accountId },
      select: integrationSelect,
    });
    const swapped = accountId !== current.accountId;
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: swapped ? 'integration.account_swapped' : 'integration.updated',
      summary: swapped
        ? `Integration "${integration.name}" now uses account ${integration.account?.name ?? '(none)'}`
        : `Integration "${integration.name}" updated`,
      details: { integrationId: current.id, fromAccountId: current.accountId, toAccountId: accountId },
    });
    return integration;
  });
}

export async function setIntegrationEnabled(db: Db, actor: Actor, input: { integrationId: string; enabled: boolean }) {
  const current = await getIntegration(db, actor, input.integrationId);
  return db.$transaction(async (tx) => {
    const integration = await tx.integration.update({
      where: { id: current.id },
      data: { enabled: input.enabled },
      select: integrationSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: input.enabled ? 'integration.enabled' : 'integration.disabled',
      summary: `Integration "${current.name}" ${input.enabled ? 'enabled' : 'disabled'}`,
      details: { integrationId: current.id },
    });
    return integration;
  });
}

/** Requests already sent keep their snapshot and finish; new requests no longer include it. */
export async function deleteIntegration(db: Db, actor: Actor, integrationId: string) {
  const current = await getIntegration(db, actor, integrationId);
  return db.$transaction(async (tx) => {
    await tx.integration.delete({ where: { id: current.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'integration.deleted',
      summary: `Integration "${current.name}" deleted`,
      details: { integrationId },
    });
    return { id: integrationId };
  });
}

/** "Test connection" for a saved integration. */
export async function testIntegrationConnection(deps: AccountDeps, actor: Actor, integrationId: string) {
  const integration = await getIntegration(deps.prisma, actor, integrationId);
  const destination = await loadDestinationForUser(deps, {
    type: integration.type,
    config: integration.config,
    accountId: integration.accountId,
    organizationId: actor.organizationId,
  });
  const trail: Exchange[] = [];
  const result = await destination.driver.testConnection(adminContext(deps, destination, trail));
  return { ...result, message: destinationRedactor(destination)(result.message), exchanges: trail };
}

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
