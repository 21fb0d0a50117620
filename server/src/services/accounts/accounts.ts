import { storedIntegrationType } from '@shared/integrations/connectors';
import {
  ACCOUNT_OUTBOUND_FIELDS,
  accountSecretSchemas,
  integrationTypeInfo,
  isSecretAccountField,
  type AccountType,
} from '@shared/integrations';
import type { IntegrationType } from '@shared/statuses';
import type { Db } from '../../db/client';
import type { Prisma } from '../../generated/prisma/client';
import { AppError, notFound } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import { sealSecret } from '../keys/secret-store';
import { assertHostAllowed, assertUrlAllowed, OutboundBlockedError, type OutboundPolicy } from '../../lib/ssrf';
import type { Keyring } from '../../lib/crypto';
import type { Logger } from '../../lib/logger';
import type { Config } from '../../config';
import { accountContext } from './secrets';
import type { Actor } from '../auth/actor';
import { recordAudit } from '../audit/record-audit';

export interface AccountDeps {
  prisma: Db;
  keyring: Keyring;
  policy: OutboundPolicy;
  log: Logger;
  /** Lets OAuth accounts refresh an expired access token before a call. */
  config?: Config;
}

export const accountSelect = {
  id: true,
  name: true,
  type: true,
  integrationType: true,
  secretHints: true,
  createdAt: true,
  updatedAt: true,
  integrations: { select: { id: true, name: true, workspaceId: true } },
} satisfies Prisma.AccountSelect;

/** A host or URL the SSRF policy refuses is reported on its own field. */
async function assertAllowed(field: string, check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (!(error instanceof OutboundBlockedError)) throw error;
    throw new AppError('BAD_REQUEST', error.message, {
      issues: [{ path: ['secrets', field], message: error.message }],
    });
  }
}

/** Validates credentials for the account type; the hosts and URLs it declares pass the SSRF policy at save time. */
export async function validateSecrets(deps: AccountDeps, type: AccountType, secrets: unknown) {
  const parsed = accountSecretSchemas[type].safeParse(secrets);
  if (!parsed.success) {
    throw new AppError('BAD_REQUEST', 'Invalid credentials', {
      issues: parsed.error.issues.map((i) => ({ ...i, path: ['secrets', ...i.path] })),
    });
  }
  const fields = parsed.data as Record<string, unknown>;
  const outbound = ACCOUNT_OUTBOUND_FIELDS[type];
  for (const key of outbound.hosts ?? [])
    if (typeof fields[key] === 'string')
      await assertAllowed(key, () => assertHostAllowed(fields[key] as string, deps.policy));
  for (const key of outbound.urls ?? [])
    if (typeof fields[key] === 'string')
      await assertAllowed(key, () => assertUrlAllowed(fields[key] as string, deps.policy));
  return fields;
}

/** What may be shown of credentials: fields the account type declares public, and the last 4 characters of long secrets. */
function hintsFor(type: AccountType, secrets: Record<string, unknown>): Record<string, string> {
  const hints: Record<string, string> = {};
  for (const [key, value] of Object.entries(secrets)) {
    if (value === undefined) continue;
    if (!isSecretAccountField(type, key)) hints[key] = String(value);
    // The last four code points, never half of a surrogate pair (PostgreSQL refuses one in JSON).
    else hints[key] = typeof value === 'string' && value.length >= 16 ? `••••${[...value].slice(-4).join('')}` : '••••';
  }
  return hints;
}

export function assertAccountFits(integrationType: IntegrationType, type: AccountType) {
  const info = integrationTypeInfo[integrationType];
  if (!info)
    throw new AppError('BAD_REQUEST', `Integrations of type ${integrationType} are not supported by this version`);
  if (!info.accountTypes.includes(type)) {
    throw new AppError(
      'BAD_REQUEST',
      `${info.label} integrations use ${info.accountTypes.join(' or ')} accounts, not ${type}`,
      { issues: [{ path: ['type'], message: 'Wrong account type' }] },
    );
  }
}

export async function createAccount(
  deps: AccountDeps,
  actor: Actor,
  input: { name: string; integrationType: IntegrationType; type: AccountType; secrets: unknown },
) {
  assertAccountFits(input.integrationType, input.type);
  const secrets = await validateSecrets(deps, input.type, input.secrets);
  const id = newId(ID_PREFIX.account);
  const secretCipher = await sealSecret(deps, actor.organizationId, JSON.stringify(secrets), accountContext(id));
  return deps.prisma.$transaction(async (tx) => {
    const account = await tx.account.create({
      data: {
        id,
        organizationId: actor.organizationId,
        name: input.name,
        type: input.type,
        integrationType: input.integrationType,
        secretCipher,
        secretHints: hintsFor(input.type, secrets),
      },
      select: accountSelect,
    });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'account.created',
      summary: `Account "${input.name}" (${input.integrationType}) created`,
      details: { accountId: id },
    });
    return withIntegrationType(account);
  });
}

/** An account as read back, its integration type (stored as text) checked against the registered connectors. */
function withIntegrationType<Row extends { integrationType: string }>(row: Row) {
  return { ...row, integrationType: storedIntegrationType(row.integrationType) };
}

export async function listAccounts(db: Db, actor: Actor, filter: { integrationType?: IntegrationType } = {}) {
  const accounts = await db.account.findMany({
    where: { organizationId: actor.organizationId, ...filter },
    select: accountSelect,
    orderBy: { createdAt: 'asc' },
  });
  return accounts.map(withIntegrationType);
}

export async function getAccount(db: Db, actor: Actor, accountId: string) {
  const account = await db.account.findFirst({
    where: { id: accountId, organizationId: actor.organizationId },
    select: accountSelect,
  });
  if (!account) throw notFound('Account');
  return withIntegrationType(account);
}

/** Renames and/or replaces the credentials as a whole (they are write-only). */
export async function updateAccount(
  deps: AccountDeps,
  actor: Actor,
  input: { accountId: string; name?: string; secrets?: unknown },
) {
  const account = await getAccount(deps.prisma, actor, input.accountId);
  const data: Prisma.AccountUpdateInput = {};
  if (input.name) data.name = input.name;
  if (input.secrets !== undefined) {
    const secrets = await validateSecrets(deps, account.type, input.secrets);
    data.secretCipher = await sealSecret(
      deps,
      actor.organizationId,
      JSON.stringify(secrets),
      accountContext(account.id),
    );
    data.secretHints = hintsFor(account.type, secrets);
  }
  return deps.prisma.$transaction(async (tx) => {
    const updated = await tx.account.update({ where: { id: account.id }, data, select: accountSelect });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: input.secrets !== undefined ? 'account.secrets_replaced' : 'account.renamed',
      summary:
        input.secrets !== undefined
          ? `Credentials of account "${updated.name}" replaced`
          : `Account renamed to "${updated.name}"`,
      details: { accountId: account.id },
    });
    return withIntegrationType(updated);
  });
}

/** Refused while integrations use the account, naming them. */
export async function deleteAccount(db: Db, actor: Actor, accountId: string) {
  const account = await getAccount(db, actor, accountId);
  if (account.integrations.length > 0) {
    throw new AppError(
      'CONFLICT',
      `Account "${account.name}" is used by ${account.integrations.map((i) => `"${i.name}"`).join(', ')}; swap or delete those integrations first`,
    );
  }
  return db.$transaction(async (tx) => {
    await tx.account.delete({ where: { id: accountId } });
    await recordAudit(tx, actor, {
      organizationId: actor.organizationId,
      action: 'account.deleted',
      summary: `Account "${account.name}" deleted`,
      details: { accountId },
    });
    return { id: accountId };
  });
}
