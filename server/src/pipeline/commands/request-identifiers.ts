import {
  BUILT_IN_IDENTIFIER_TYPES,
  identifierMatchKey,
  inferPrimaryType,
  MAX_IDENTIFIERS_PER_REQUEST,
  normaliseIdentifier,
  type RequestIdentifierInput,
} from '@shared/identifiers';
import { hotQuery, type DbOrTx } from '../../db/client';
import { identifierHmac, type Keyring } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { NewRequestIdentifier } from '../store/fan-out';

/** The identifier types an organization's requests may carry: the built-in ones and its own. */
export async function organizationIdentifierTypes(db: DbOrTx, organizationId: string): Promise<string[]> {
  const own = await hotQuery<{ name: string }>(
    db,
    `SELECT name FROM "IdentifierType" WHERE "organizationId" = $1 ORDER BY name`,
    [organizationId],
  );
  return [...BUILT_IN_IDENTIFIER_TYPES, ...own.map((row) => row.name)];
}

/** The keyed hashes of one identifier: by type and value (de-duplication), and by value alone (search). */
export function identifierHashes(keyring: Keyring, type: string | null, value: string) {
  const key = identifierMatchKey(type, value);
  return {
    valueHmac: identifierHmac(keyring, `identifier\n${type ?? ''}\n${key}`),
    matchHmac: identifierHmac(keyring, key),
  };
}

const badRequest = (path: (string | number)[], message: string) =>
  new AppError('BAD_REQUEST', `${path.join('.')}: ${message}`, { issues: [{ path, message }] });

/**
 * The identifiers a new request carries: the primary one (typed as given, else email when it
 * reads as one, else untyped) and the others, each checked by its type's normaliser and
 * de-duplicated by type and match key. Bad input is a 400 naming the field, before anything is written.
 */
export async function requestIdentifiers(
  deps: { prisma: DbOrTx; keyring: Keyring },
  organizationId: string,
  primary: { value: string; type?: string },
  others: RequestIdentifierInput[],
  source = 'request',
): Promise<NewRequestIdentifier[]> {
  if (others.length + 1 > MAX_IDENTIFIERS_PER_REQUEST)
    throw badRequest(
      ['identifiers'],
      `at most ${MAX_IDENTIFIERS_PER_REQUEST} identifiers per request, the primary one included`,
    );
  const typed = primary.type !== undefined || others.length > 0;
  const known = typed ? new Set(await organizationIdentifierTypes(deps.prisma, organizationId)) : null;
  const rows: NewRequestIdentifier[] = [];
  const seen = new Set<string>();
  const add = (path: (string | number)[], type: string | null, raw: string, isPrimary: boolean) => {
    if (type !== null && known && !known.has(type))
      throw badRequest([...path, 'type'], `unknown identifier type "${type}"; add it in the organization's settings`);
    const normalised = type === null ? { ok: true as const, value: raw.trim() } : normaliseIdentifier(type, raw);
    if (!normalised.ok) throw badRequest([...path, 'value'], `${type}: the value ${normalised.message}`);
    const hashes = identifierHashes(deps.keyring, type, normalised.value);
    if (seen.has(hashes.valueHmac))
      throw badRequest(path, 'the same identifier is given twice (or once more as the primary identifier)');
    seen.add(hashes.valueHmac);
    rows.push({
      id: newId(ID_PREFIX.requestIdentifier),
      type,
      value: normalised.value,
      ...hashes,
      primary: isPrimary,
      source,
    });
  };
  add(
    primary.type !== undefined ? ['identifierType'] : ['identifier'],
    primary.type ?? inferPrimaryType(primary.value),
    primary.value,
    true,
  );
  others.forEach((other, index) => add(['identifiers', index], other.type, other.value, false));
  return rows;
}
