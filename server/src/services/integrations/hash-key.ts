import { randomBytes } from 'node:crypto';
import { hotQuery, type DbOrTx } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { openSecret, sealSecret } from '../keys/secret-store';

/** The encryption context of an integration's sealed hash key: a ciphertext copied to another integration does not open. */
const hashKeyContext = (integrationId: string) => `integration-hash-key:${integrationId}`;

interface HashKeyDeps {
  prisma: DbOrTx;
  keyring: Keyring;
}

/** A new random key for the `hash` action, sealed with the organization's data key (as account credentials are). */
export async function sealNewHashKey(deps: HashKeyDeps, organizationId: string, integrationId: string) {
  return sealSecret(deps, organizationId, randomBytes(32).toString('hex'), hashKeyContext(integrationId));
}

/**
 * The integration's hash key, opened. An integration made before keyed hashing gets one here, the
 * first time a deletion needs it (sealing needs the master key, so a migration could not). Two
 * workers doing so at once keep the first key stored. Null when the integration was deleted.
 */
export async function integrationHashKey(
  deps: HashKeyDeps,
  organizationId: string,
  integrationId: string,
  stored?: string | null,
): Promise<Buffer | null> {
  let sealed = stored;
  if (!sealed) sealed = await readHashKey(deps.prisma, organizationId, integrationId);
  if (sealed === undefined) return null;
  if (sealed === null) {
    const fresh = await sealNewHashKey(deps, organizationId, integrationId);
    await hotQuery(
      deps.prisma,
      `UPDATE "Integration" SET "hashKeyCipher" = $1 WHERE id = $2 AND "hashKeyCipher" IS NULL`,
      [fresh, integrationId],
    );
    sealed = await readHashKey(deps.prisma, organizationId, integrationId);
    if (!sealed) return null;
  }
  return Buffer.from(await openSecret(deps, organizationId, sealed, hashKeyContext(integrationId)), 'hex');
}

/** The sealed key (null: none yet), or undefined when the organization has no such integration. */
async function readHashKey(
  db: DbOrTx,
  organizationId: string,
  integrationId: string,
): Promise<string | null | undefined> {
  const [row] = await hotQuery<{ hashKeyCipher: string | null }>(
    db,
    `SELECT i."hashKeyCipher" FROM "Integration" i JOIN "Workspace" w ON w.id = i."workspaceId"
      WHERE i.id = $1 AND w."organizationId" = $2`,
    [integrationId, organizationId],
  );
  return row ? row.hashKeyCipher : undefined;
}
