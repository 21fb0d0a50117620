import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A prefixed, URL-safe random id such as `dr_8f3k2...` (100 bits of randomness). */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}

export const ID_PREFIX = {
  organization: 'org',
  user: 'usr',
  membership: 'mem',
  session: 'ses',
  token: 'pat',
  workspace: 'ws',
  account: 'acc',
  integration: 'int',
  deletionRequest: 'dr',
  integrationRequest: 'ir',
  invitation: 'inv',
  callbackEndpoint: 'cbe',
  callbackDelivery: 'msg',
  requestIdentifier: 'rid',
  identifierType: 'idt',
  identityLookup: 'lkp',
  manualTask: 'mt',
} as const;
