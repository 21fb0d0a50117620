import type { CreateIdentityLookupInput, IdentityLookupDto } from '@shared/schemas/identity-lookups';
import { generateCallbackSecret } from '../../lib/webhook-signing';
import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { LookupConfigError, validateLookupConfig, type IdentityLookupConfig } from '../../identity-lookups/run-lookup';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { assertUrlAllowed, type OutboundPolicy } from '../../lib/ssrf';
import { organizationIdentifierTypes, webhookLookupSecretContext } from './identifier-values';
import { assertWorkspaceAllowed, type Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';
import { sealSecret } from '../keys/secret-store';
import type { Keyring } from '../../lib/crypto';

type Deps = { prisma: Db; keyring: Keyring; policy: OutboundPolicy };

async function assertAllowed(field: string, url: string, policy: OutboundPolicy): Promise<void> {
  try {
    await assertUrlAllowed(url, policy);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `${field}: refused: ${(error as Error).message}`);
  }
}

const DIALECT_OF = { POSTGRES: 'postgres', MYSQL: 'mysql' } as const;

/** The account a connector lookup reads with: the same integration's credentials. */
const CONNECTOR_ACCOUNT: Record<'stripe' | 'auth0' | 'hubspot', { type: string; label: string }> = {
  stripe: { type: 'STRIPE', label: 'a Stripe' },
  auth0: { type: 'AUTH0', label: 'an Auth0' },
  hubspot: { type: 'HUBSPOT', label: 'a HubSpot' },
};

type LookupRow = Prisma.IdentityLookupGetPayload<object>;

function toDto(row: LookupRow): IdentityLookupDto {
  const config = row.config as unknown as IdentityLookupConfig;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    position: row.position,
    enabled: row.enabled,
    accountId: row.accountId,
    config,
    createdAt: row.createdAt.toISOString(),
  };
}

async function workspaceOf(db: Db, actor: Actor, workspaceId: string) {
  const workspace = await db.workspace.findFirst({ where: { id: workspaceId, organizationId: actor.organizationId } });
  if (!workspace) throw notFound('Workspace');
  assertWorkspaceAllowed(actor, workspace.id);
  return workspace;
}

export async function listIdentityLookups(db: Db, actor: Actor, workspaceId: string): Promise<IdentityLookupDto[]> {
  await workspaceOf(db, actor, workspaceId);
  const rows = await db.identityLookup.findMany({
    where: { workspaceId },
    orderBy: [{ position: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map(toDto);
}

/**
 * Adds a lookup at the end of the workspace's order. Checked when saved: a SQL lookup needs a
 * PostgreSQL or MySQL/MariaDB account of the organization and one parameterised SELECT whose
 * placeholders and columns name known identifier types; a Stripe, Auth0 or HubSpot lookup an
 * account of that integration and the identifier type the ids it finds are; a webhook lookup a URL the outbound policy allows. A webhook lookup's signing secret is in this answer only.
 */
export async function createIdentityLookup(
  deps: Deps,
  actor: Actor,
  input: CreateIdentityLookupInput,
): Promise<IdentityLookupDto & { secret?: string }> {
  const db = deps.prisma;
  await workspaceOf(db, actor, input.workspaceId);
  if (
    await db.identityLookup.findUnique({
      where: { workspaceId_name: { workspaceId: input.workspaceId, name: input.name } },
    })
  )
    throw new AppError('CONFLICT', `The workspace already has a lookup named "${input.name}"`);
  let config: IdentityLookupConfig;
  let accountId: string | null = null;
  if (input.kind === 'sql') {
    const account = await db.account.findFirst({
      where: { id: input.accountId, organizationId: actor.organizationId },
      select: { id: true, integrationType: true },
    });
    // Another organization's account, like an unknown one, is a 404.
    if (!account) throw notFound('Account');
    const dialect = DIALECT_OF[account.integrationType as keyof typeof DIALECT_OF];
    if (!dialect)
      throw new AppError('BAD_REQUEST', 'accountId: a SQL lookup needs a PostgreSQL or MySQL/MariaDB account');
    accountId = account.id;
    config = {
      kind: 'sql',
      dialect,
      query: input.query,
      columns: input.columns,
      timeoutMs: input.timeoutMs,
      maxRows: input.maxRows,
    };
  } else if (input.kind !== 'webhook') {
    const needed = CONNECTOR_ACCOUNT[input.kind];
    const account = await db.account.findFirst({
      where: { id: input.accountId, organizationId: actor.organizationId },
      select: { id: true, integrationType: true },
    });
    if (!account) throw notFound('Account');
    if (account.integrationType !== needed.type)
      throw new AppError('BAD_REQUEST', `accountId: ${needed.label} lookup needs ${needed.label} account`);
    if (input.baseUrl) await assertAllowed('baseUrl', input.baseUrl, deps.policy);
    accountId = account.id;
    config = {
      kind: input.kind,
      ...(input.kind === 'auth0' ? { domain: input.domain } : {}),
      ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}),
      identifierType: input.identifierType,
      maxIdentifiers: input.maxIdentifiers,
    } as IdentityLookupConfig;
  } else {
    await assertAllowed('url', input.url, deps.policy);
    config = { kind: 'webhook', url: input.url, timeoutMs: input.timeoutMs, maxIdentifiers: input.maxIdentifiers };
  }
  try {
    validateLookupConfig(config, await organizationIdentifierTypes(db, actor.organizationId));
  } catch (error) {
    if (error instanceof LookupConfigError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
  const id = newId(ID_PREFIX.identityLookup);
  const secret = config.kind === 'webhook' ? generateCallbackSecret() : undefined;
  const secretCipher = secret
    ? await sealSecret(deps, actor.organizationId, secret, webhookLookupSecretContext(id))
    : null;
  const last = await db.identityLookup.aggregate({
    where: { workspaceId: input.workspaceId },
    _max: { position: true },
  });
  const row = await db.$transaction(async (tx) => {
    const created = await tx.identityLookup.create({
      data: {
        id,
        workspaceId: input.workspaceId,
        name: input.name,
        position: (last._max.position ?? -1) + 1,
        kind: config.kind,
        accountId,
        config: config as unknown as Prisma.InputJsonValue,
        secretCipher,
      },
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'identity_lookup.created',
      summary: `Identity lookup "${input.name}" (${config.kind}) added to the workspace`,
      details: { workspaceId: input.workspaceId, lookupId: id, kind: config.kind },
    });
    return created;
  });
  return { ...toDto(row), ...(secret ? { secret } : {}) };
}

export async function deleteIdentityLookup(db: Db, actor: Actor, lookupId: string): Promise<{ id: string }> {
  const row = await db.identityLookup.findFirst({
    where: { id: lookupId, workspace: { organizationId: actor.organizationId } },
  });
  if (!row) throw notFound('Identity lookup');
  assertWorkspaceAllowed(actor, row.workspaceId);
  await db.$transaction(async (tx) => {
    await tx.identityLookup.delete({ where: { id: row.id } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'identity_lookup.deleted',
      summary: `Identity lookup "${row.name}" removed`,
      details: { workspaceId: row.workspaceId, lookupId: row.id },
    });
  });
  return { id: row.id };
}
