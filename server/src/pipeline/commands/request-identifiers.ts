import {
  inferPrimaryType,
  MAX_IDENTIFIERS_PER_REQUEST,
  normaliseIdentifier,
  type RequestIdentifierInput,
} from '@shared/identifiers';
import type { DbOrTx } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { identifierHashes, organizationIdentifierTypes } from '../../services/identities/identifier-values';
import { AppError } from '../../lib/errors';
import { ID_PREFIX, newId } from '../../lib/ids';
import type { NewRequestIdentifier } from '../store/fan-out';

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
