import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { accountContext } from '../accounts/secrets';
import { aeadOpen, aeadSeal, createKeyring, type Keyring } from '../../lib/crypto';
import {
  masterKeyFor,
  MasterKeyMismatchError,
  openSecret,
  sealSecret,
  unwrapDataKey,
  dataKeyWrapContext,
} from './secret-store';
import { workspaceApiKeyContext } from '../workspaces/workspaces';

/** Thrown at start-up when the configured master key cannot open what the database holds. */
export class KeyConfigurationError extends Error {}

const PEPPER_ID = 'identifier-pepper';
const serviceKeyContext = (id: string) => `service-key:${id}`;

/**
 * The process keyring: master keys from configuration, the identifier pepper from the
 * database (stored wrapped, so a master key rotation does not change any identifier
 * HMAC), and a start-up check that the master key really unwraps the stored keys.
 */
export async function loadKeyring(
  db: Db,
  config: Pick<Config, 'encryptionKey' | 'previousEncryptionKeys'>,
): Promise<Keyring> {
  const keyring = createKeyring(config.encryptionKey, config.previousEncryptionKeys);
  try {
    await verifyMasterKeys(db, keyring);
    keyring.identifierPepper = await loadServiceKey(db, keyring, PEPPER_ID, keyring.identifierPepper);
  } catch (error) {
    if (error instanceof MasterKeyMismatchError) throw new KeyConfigurationError(error.message);
    throw error;
  }
  return keyring;
}

/** A service-wide key: stored wrapped on first start (with `initial`), unwrapped afterwards. */
async function loadServiceKey(db: Db, keyring: Keyring, id: string, initial: Buffer): Promise<Buffer> {
  const current = keyring.masterKeys[0]!;
  await db.serviceKey.createMany({
    data: [
      { id, wrappedKey: aeadSeal(current.wrappingKey, initial, serviceKeyContext(id)), masterKeyId: current.keyId },
    ],
    skipDuplicates: true,
  });
  const row = await db.serviceKey.findUniqueOrThrow({ where: { id } });
  const master = masterKeyFor(keyring, row.masterKeyId);
  try {
    return aeadOpen(master.wrappingKey, row.wrappedKey, serviceKeyContext(id));
  } catch {
    throw new MasterKeyMismatchError(
      `Service key ${id} does not unwrap with master key ${row.masterKeyId}: wrong ENCRYPTION_KEY, or the row was altered`,
    );
  }
}

/** Every master key id in use must be configured, and one data key per id must really unwrap. */
async function verifyMasterKeys(db: Db, keyring: Keyring): Promise<void> {
  const groups = await db.organizationKey.groupBy({ by: ['masterKeyId'], _count: { _all: true } });
  for (const group of groups) {
    if (!keyring.masterKeys.some((k) => k.keyId === group.masterKeyId)) {
      throw new MasterKeyMismatchError(
        `${group._count._all} organization data key(s) are wrapped by master key ${group.masterKeyId}, which is neither ENCRYPTION_KEY (${keyring.keyId}) nor in PREVIOUS_ENCRYPTION_KEYS. ` +
          'Start with the key that protects this database (see SECURITY.md, "Key management").',
      );
    }
    const sample = await db.organizationKey.findFirstOrThrow({
      where: { masterKeyId: group.masterKeyId },
      select: { id: true, organizationId: true, wrappedKey: true, masterKeyId: true },
    });
    unwrapDataKey(keyring, sample);
  }
}

export interface KeyStatus {
  masterKeyId: string;
  previousMasterKeyIds: string[];
  dataKeysByMasterKey: Record<string, number>;
  serviceKeysByMasterKey: Record<string, number>;
  legacySecrets: number;
}

export async function keyStatus(db: Db, keyring: Keyring): Promise<KeyStatus> {
  const [dataKeys, serviceKeys, legacyWorkspaces, legacyAccounts] = await Promise.all([
    db.organizationKey.groupBy({ by: ['masterKeyId'], _count: { _all: true } }),
    db.serviceKey.groupBy({ by: ['masterKeyId'], _count: { _all: true } }),
    db.workspace.count({ where: { apiKeyCipher: { startsWith: 'v1:' } } }),
    db.account.count({ where: { secretCipher: { startsWith: 'v1:' } } }),
  ]);
  return {
    masterKeyId: keyring.keyId,
    previousMasterKeyIds: keyring.masterKeys.slice(1).map((k) => k.keyId),
    dataKeysByMasterKey: Object.fromEntries(dataKeys.map((g) => [g.masterKeyId, g._count._all])),
    serviceKeysByMasterKey: Object.fromEntries(serviceKeys.map((g) => [g.masterKeyId, g._count._all])),
    legacySecrets: legacyWorkspaces + legacyAccounts,
  };
}

export interface RotationResult {
  masterKeyId: string;
  rewrappedDataKeys: number;
  rewrappedServiceKeys: number;
  resealedLegacySecrets: number;
}

/**
 * Re-wraps every data key and service key with `newMasterKey` (default: the keyring's
 * current master key, i.e. ENCRYPTION_KEY after it was switched and the old key moved to
 * PREVIOUS_ENCRYPTION_KEYS). Secrets are not touched, except those still in the first
 * format (encrypted with the master key directly), which are re-sealed with data keys.
 * Resumable and idempotent: rows already wrapped by the target are skipped, and each row
 * is swapped only if nobody changed it meanwhile.
 */
export async function rotateMasterKey(db: Db, sourceKeyring: Keyring, newMasterKey?: Buffer): Promise<RotationResult> {
  const target = newMasterKey ? createKeyring(newMasterKey).masterKeys[0]! : sourceKeyring.masterKeys[0]!;
  const keyring: Keyring = {
    ...sourceKeyring,
    masterKeys: [target, ...sourceKeyring.masterKeys.filter((k) => k.keyId !== target.keyId)],
  };
  const resealedLegacySecrets = await resealLegacySecrets(db, keyring);
  let rewrappedDataKeys = 0;
  for (;;) {
    const rows = await db.organizationKey.findMany({
      where: { masterKeyId: { not: target.keyId } },
      select: { id: true, organizationId: true, wrappedKey: true, masterKeyId: true },
      take: 500,
    });
    if (rows.length === 0) break;
    for (const row of rows) {
      const key = unwrapDataKey(keyring, row);
      const { count } = await db.organizationKey.updateMany({
        where: { id: row.id, masterKeyId: row.masterKeyId, wrappedKey: row.wrappedKey },
        data: {
          wrappedKey: aeadSeal(target.wrappingKey, key, dataKeyWrapContext(row.id, row.organizationId)),
          masterKeyId: target.keyId,
          rewrappedAt: new Date(),
        },
      });
      rewrappedDataKeys += count;
    }
  }
  let rewrappedServiceKeys = 0;
  for (const row of await db.serviceKey.findMany({ where: { masterKeyId: { not: target.keyId } } })) {
    const master = masterKeyFor(keyring, row.masterKeyId);
    const key = aeadOpen(master.wrappingKey, row.wrappedKey, serviceKeyContext(row.id));
    const { count } = await db.serviceKey.updateMany({
      where: { id: row.id, masterKeyId: row.masterKeyId },
      data: {
        wrappedKey: aeadSeal(target.wrappingKey, key, serviceKeyContext(row.id)),
        masterKeyId: target.keyId,
        rewrappedAt: new Date(),
      },
    });
    rewrappedServiceKeys += count;
  }
  return { masterKeyId: target.keyId, rewrappedDataKeys, rewrappedServiceKeys, resealedLegacySecrets };
}

/** Secrets of the first format depend on the master key itself: move them onto data keys. */
async function resealLegacySecrets(db: Db, keyring: Keyring): Promise<number> {
  let resealed = 0;
  const deps = { prisma: db, keyring };
  for (const workspace of await db.workspace.findMany({
    where: { apiKeyCipher: { startsWith: 'v1:' } },
    select: { id: true, organizationId: true, apiKeyCipher: true },
  })) {
    const context = workspaceApiKeyContext(workspace.id);
    const plaintext = await openSecret(deps, workspace.organizationId, workspace.apiKeyCipher, context);
    const { count } = await db.workspace.updateMany({
      where: { id: workspace.id, apiKeyCipher: workspace.apiKeyCipher },
      data: { apiKeyCipher: await sealSecret(deps, workspace.organizationId, plaintext, context) },
    });
    resealed += count;
  }
  for (const account of await db.account.findMany({
    where: { secretCipher: { startsWith: 'v1:' } },
    select: { id: true, organizationId: true, secretCipher: true },
  })) {
    const context = accountContext(account.id);
    const plaintext = await openSecret(deps, account.organizationId, account.secretCipher, context);
    const { count } = await db.account.updateMany({
      where: { id: account.id, secretCipher: account.secretCipher },
      data: { secretCipher: await sealSecret(deps, account.organizationId, plaintext, context) },
    });
    resealed += count;
  }
  return resealed;
}
