import { storedIntegrationType } from '@shared/integrations/connectors';
import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { adminContext } from '../../integrations/runtime/driver-context';
import type { Exchange } from '../../integrations/types';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { getWorkspace } from '../workspaces/workspaces';
import type { AccountDeps } from '../accounts/accounts';
import { loadDestinationForUser } from './destination';
import { destinationRedactor } from '../../integrations/runtime/redaction';
import { validateForSave, type IntegrationInput } from './validate-config';
import { sealNewHashKey } from './hash-key';
import { usesHashKey } from '@shared/integrations/sql-columns';
import { CONNECTION_TESTED_ACTION } from '../dashboard/get-setup-progress';
import { integrationTypeInfo } from '@shared/integrations';
import { destinationHost } from './destination-failure';
import { hostOfUrls } from './outbound-urls';

export const integrationSelect = {
  id: true,
  workspaceId: true,
  name: true,
  type: true,
  config: true,
  enabled: true,
  consumesType: true,
  maxConcurrency: true,
  accountId: true,
  createdAt: true,
  updatedAt: true,
  account: { select: { id: true, name: true, type: true } },
} satisfies Prisma.IntegrationSelect;

export async function getIntegration(db: Db, actor: Actor, integrationId: string) {
  const integration = await db.integration.findFirst({
    where: { id: integrationId, workspace: { organizationId: actor.organizationId } },
    select: integrationSelect,
  });
  if (!integration) throw notFound('Integration');
  return { ...integration, type: storedIntegrationType(integration.type) };
}

export async function listIntegrations(db: Db, actor: Actor, filter: { workspaceId?: string }) {
  const integrations = await db.integration.findMany({
    where: {
      workspace: { organizationId: actor.organizationId },
      ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}),
    },
    select: integrationSelect,
    orderBy: { createdAt: 'asc' },
  });
  return integrations.map((integration) => ({ ...integration, type: storedIntegrationType(integration.type) }));
}

export async function createIntegration(
  deps: AccountDeps,
  actor: Actor,
  input: IntegrationInput & { workspaceId: string; enabled?: boolean; maxConcurrency?: number | null },
) {
  await getWorkspace(deps.prisma, actor, input.workspaceId);
  const { config, accountId } = await validateForSave(deps, actor, input);
  const id = newId(ID_PREFIX.integration);
  return deps.prisma.$transaction(async (tx) => {
    // Sealed in this transaction: an organization data key made on first use is stored with it.
    const hashKeyCipher = usesHashKey(input.type)
      ? await sealNewHashKey({ prisma: tx, keyring: deps.keyring }, actor.organizationId, id)
      : null;
    const integration = await tx.integration.create({
      data: {
        id,
        workspaceId: input.workspaceId,
        name: input.name,
        type: input.type,
        config,
        accountId,
        enabled: input.enabled ?? true,
        hashKeyCipher,
        maxConcurrency: input.maxConcurrency ?? null,
      },
      select: integrationSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'integration.created',
      summary: `${input.type} integration "${input.name}" created`,
      details: {
        integrationId: id,
        workspaceId: input.workspaceId,
        accountId,
        maxConcurrency: input.maxConcurrency ?? null,
      },
    });
    return integration;
  });
}

/** Changes name, configuration, concurrency and/or account; a new account is a credential swap, audited as such. */
export async function updateIntegration(
  deps: AccountDeps,
  actor: Actor,
  input: {
    integrationId: string;
    name?: string;
    config?: unknown;
    accountId?: string | null;
    maxConcurrency?: number | null;
  },
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
      data: {
        name: merged.name,
        config,
        accountId,
        ...(input.maxConcurrency !== undefined ? { maxConcurrency: input.maxConcurrency } : {}),
      },
      select: integrationSelect,
    });
    const swapped = accountId !== current.accountId;
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: swapped ? 'integration.account_swapped' : 'integration.updated',
      summary: swapped
        ? `Integration "${integration.name}" now uses account ${integration.account?.name ?? '(none)'}`
        : `Integration "${integration.name}" updated`,
      details: {
        integrationId: current.id,
        fromAccountId: current.accountId,
        toAccountId: accountId,
        ...(input.maxConcurrency !== undefined
          ? { fromMaxConcurrency: current.maxConcurrency, toMaxConcurrency: input.maxConcurrency }
          : {}),
      },
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
    integration: null,
  });
  const trail: Exchange[] = [];
  const result = await destination.driver.testConnection(adminContext(deps, destination, trail));
  // Kept so the setup checklist knows an integration passed a test (the message stays out: it may quote the destination).
  await recordAudit(deps.prisma, actor, {
    organizationId: actor.organizationId,
    action: CONNECTION_TESTED_ACTION,
    outcome: result.ok ? 'SUCCESS' : 'FAILED',
    summary: `Connection test of integration "${integration.name}" ${result.ok ? 'passed' : 'failed'}`,
    details: { integrationId: integration.id },
  });
  const host =
    destinationHost(destination.secrets) ??
    hostOfUrls(integrationTypeInfo[integration.type].configSchema, destination.config);
  return { ...result, host, message: destinationRedactor(destination)(result.message), exchanges: trail };
}
