import { randomBytes } from 'node:crypto';
import type { DbOrTx } from '../../db/client';
import { aeadOpen, aeadSeal, decryptSecret, type Keyring, type MasterKey } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { newId } from '../../lib/ids';

/**
 * The one seam through which organization secrets (account credentials, workspace API
 * keys) are sealed and opened: envelope encryption.
 *
 * - Each organization has a data key (AES-256, table OrganizationKey), stored wrapped by
 *   the master key (ENCRYPTION_KEY) with AES-256-GCM; the wrap is bound to the key id and
 *   the organization.
 * - A secret is AES-256-GCM under its organization's data key, as
 *   "v2:<dataKeyId>:<iv>:<tag>:<ciphertext>". The associated data binds it to the
 *   organization and to `context`, which names the record it belongs to (e.g.
 *   "account:acc_123"), so a ciphertext copied to another record or organization does not open.
 * - Rotating the master key re-wraps data keys only (keys:rotate-master); ciphertexts stay.
 *
 * Store a sealed value in the transaction that sealed it (or after it commits): a data key
 * created on first use lives in that transaction.
 */
export interface SecretStoreDeps {
  prisma: DbOrTx;
  keyring: Keyring;
}

const SECRET_VERSION = 'v2';

export const dataKeyWrapContext = (dataKeyId: string, organizationId: string) =>
  `organization-key:${dataKeyId}:${organizationId}`;
const secretContext = (organizationId: string, context: string) => `${organizationId}\n${context}`;

export class MasterKeyMismatchError extends AppError {
  constructor(message: string) {
    super('INTERNAL_SERVER_ERROR', message);
    this.name = 'MasterKeyMismatchError';
  }
}

export function masterKeyFor(keyring: Keyring, keyId: string): MasterKey {
  const master = keyring.masterKeys.find((k) => k.keyId === keyId);
  if (!master) {
    throw new MasterKeyMismatchError(
      `A data key is wrapped by master key ${keyId}, but ENCRYPTION_KEY is ${keyring.keyId}` +
        (keyring.masterKeys.length > 1
          ? ` and PREVIOUS_ENCRYPTION_KEYS are ${keyring.masterKeys
              .slice(1)
              .map((k) => k.keyId)
              .join(', ')}`
          : '') +
        '. Configure the key that protects this database (see SECURITY.md, "Key management").',
    );
  }
  return master;
}

/** Unwraps a stored data key; a wrong master key or an altered row is an error, never garbage. */
export function unwrapDataKey(
  keyring: Keyring,
  row: { id: string; organizationId: string; wrappedKey: string; masterKeyId: string },
): Buffer {
  const cacheKey = `${row.organizationId}/${row.id}`;
  const cached = keyring.dataKeys.get(cacheKey);
  if (cached) return cached;
  const master = masterKeyFor(keyring, row.masterKeyId);
  let key: Buffer;
  try {
    key = aeadOpen(master.wrappingKey, row.wrappedKey, dataKeyWrapContext(row.id, row.organizationId));
  } catch {
    throw new MasterKeyMismatchError(
      `Data key ${row.id} does not unwrap with master key ${row.masterKeyId}: wrong ENCRYPTION_KEY, or the key row was altered`,
    );
  }
  keyring.dataKeys.set(cacheKey, key);
  return key;
}

/** The organization's current data key, created (and wrapped by the current master key) on first use. */
async function currentDataKey(deps: SecretStoreDeps, organizationId: string): Promise<{ id: string; key: Buffer }> {
  const existing = await deps.prisma.organizationKey.findFirst({
    where: { organizationId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { id: true, organizationId: true, wrappedKey: true, masterKeyId: true },
  });
  if (existing) return { id: existing.id, key: unwrapDataKey(deps.keyring, existing) };
  const id = newId('key');
  const key = randomBytes(32);
  const current = deps.keyring.masterKeys[0]!;
  await deps.prisma.organizationKey.create({
    data: {
      id,
      organizationId,
      wrappedKey: aeadSeal(current.wrappingKey, key, dataKeyWrapContext(id, organizationId)),
      masterKeyId: current.keyId,
    },
  });
  deps.keyring.dataKeys.set(`${organizationId}/${id}`, key);
  return { id, key };
}

export async function sealSecret(
  deps: SecretStoreDeps,
  organizationId: string,
  plaintext: string,
  context: string,
): Promise<string> {
  const dataKey = await currentDataKey(deps, organizationId);
  return `${SECRET_VERSION}:${dataKey.id}:${aeadSeal(dataKey.key, Buffer.from(plaintext, 'utf8'), secretContext(organizationId, context))}`;
}

export async function openSecret(
  deps: SecretStoreDeps,
  organizationId: string,
  sealed: string,
  context: string,
): Promise<string> {
  if (sealed.startsWith('v1:')) return decryptSecret(deps.keyring, sealed, context);
  const [version, dataKeyId, ...rest] = sealed.split(':');
  if (version !== SECRET_VERSION || !dataKeyId || rest.length !== 3)
    throw new AppError('INTERNAL_SERVER_ERROR', 'Stored secret has an unknown format');
  let key = deps.keyring.dataKeys.get(`${organizationId}/${dataKeyId}`);
  if (!key) {
    const row = await deps.prisma.organizationKey.findFirst({
      where: { id: dataKeyId, organizationId },
      select: { id: true, organizationId: true, wrappedKey: true, masterKeyId: true },
    });
    if (!row)
      throw new AppError(
        'INTERNAL_SERVER_ERROR',
        `Stored secret names data key ${dataKeyId}, which this organization does not have`,
      );
    key = unwrapDataKey(deps.keyring, row);
  }
  try {
    return aeadOpen(key, rest.join(':'), secretContext(organizationId, context)).toString('utf8');
  } catch {
    throw new AppError(
      'INTERNAL_SERVER_ERROR',
      `Stored secret for ${context} does not decrypt: it belongs to another record or was altered`,
    );
  }
}
