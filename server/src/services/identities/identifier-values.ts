import { BUILT_IN_IDENTIFIER_TYPES, identifierMatchKey } from '@shared/identifiers';
import { hotQuery, type DbOrTx } from '../../db/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';

/** The identifier types an organization's requests may carry: the built-in ones and its own. */
export async function organizationIdentifierTypes(db: DbOrTx, organizationId: string): Promise<string[]> {
  const own = await hotQuery<{ name: string }>(
    db,
    `SELECT name FROM "IdentifierType" WHERE "organizationId" = $1 ORDER BY name`,
    [organizationId],
  );
  return [...BUILT_IN_IDENTIFIER_TYPES, ...own.map((row) => row.name)];
}

/** The keyed hashes of one identifier: by type and value (de-duplication), and by value alone (search, the erasure check). */
export function identifierHashes(keyring: Keyring, type: string | null, value: string) {
  const key = identifierMatchKey(type, value);
  return {
    valueHmac: identifierHmac(keyring, `identifier\n${type ?? ''}\n${key}`),
    matchHmac: identifierHmac(keyring, key),
  };
}

/** What a webhook identity lookup's sealed signing secret is bound to. */
export const webhookLookupSecretContext = (lookupId: string) => `identity-lookup:${lookupId}`;
