import type { AccountType } from '@shared/integrations/accounts';
import { hotQuery, type DbOrTx } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { openSecret } from '../keys/secret-store';
import { PermanentError } from '../../integrations/types';

/** The encryption context of an account's sealed credentials. */
export const accountContext = (accountId: string) => `account:${accountId}`;

/** An account's credentials, decrypted, with its type (which decides which fields are secret). */
export interface OpenedAccount {
  type: AccountType | null;
  secrets: Record<string, unknown>;
}

/**
 * Decrypts an account's credentials (a JSON object). `sealed` when the caller already read
 * the row (`secretCipher` null: the account is gone). A missing account is a PermanentError.
 */
export async function openAccount(
  deps: { prisma: DbOrTx; keyring: Keyring },
  organizationId: string,
  accountId: string,
  sealed?: { secretCipher: string | null; type: AccountType | null },
): Promise<OpenedAccount> {
  let row = sealed;
  if (row === undefined) {
    const [account] = await hotQuery<{ secretCipher: string; type: AccountType }>(
      deps.prisma,
      `SELECT "secretCipher", type::text AS type FROM "Account" WHERE id = $1 AND "organizationId" = $2`,
      [accountId, organizationId],
    );
    row = account ?? { secretCipher: null, type: null };
  }
  if (row.secretCipher === null) throw new PermanentError('The account of this integration was deleted');
  const secrets = JSON.parse(
    await openSecret(deps, organizationId, row.secretCipher, accountContext(accountId)),
  ) as Record<string, unknown>;
  return { type: row.type, secrets };
}

/** Decrypts an account's credentials (a JSON object); a missing account is a PermanentError. */
export async function loadAccountSecrets(
  deps: { prisma: DbOrTx; keyring: Keyring },
  organizationId: string,
  accountId: string,
) {
  return (await openAccount(deps, organizationId, accountId)).secrets;
}
