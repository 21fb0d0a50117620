import type { DbOrTx } from '../db/client';
import { decryptSecret, encryptSecret, type Keyring } from './crypto';

/**
 * The one seam through which organization secrets (account credentials, workspace API
 * keys) are sealed and opened. `context` names the record the ciphertext belongs to
 * (e.g. "account:acc_123"), bound as associated data.
 */
export interface SecretStoreDeps {
  prisma: DbOrTx;
  keyring: Keyring;
}

export async function sealSecret(deps: SecretStoreDeps, organizationId: string, plaintext: string, context: string): Promise<string> {
  void organizationId;
  return encryptSecret(deps.keyring, plaintext, context);
}

export async function openSecret(deps: SecretStoreDeps, organizationId: string, sealed: string, context: string): Promise<string> {
  void organizationId;
  return decryptSecret(deps.keyring, sealed, context);
}
