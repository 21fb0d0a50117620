import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { AppError } from './errors';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** One master key (ENCRYPTION_KEY or an entry of PREVIOUS_ENCRYPTION_KEYS), by purpose. */
export interface MasterKey {
  /** Short fingerprint, stored beside what it protects. */
  keyId: string;
  /** Wraps organization data keys and service keys. */
  wrappingKey: Buffer;
  /** Key of the first secret format (v1), which encrypted with the master key directly. */
  legacySecretsKey: Buffer;
}

/** Keys derived from the master key, each for one purpose. */
export interface Keyring {
  /** Fingerprint of the current master key. */
  keyId: string;
  /** v1 secrets key of the current master key (kept for reading old ciphertexts). */
  encryptionKey: Buffer;
  /** Identifier HMAC pepper; loadKeyring replaces it with the stored one, which survives master key rotation. */
  identifierPepper: Buffer;
  /** The current master key first, then previous ones (readable during a rotation). */
  masterKeys: MasterKey[];
  /** Unwrapped organization data keys by "organizationId/keyId" (they never change, only their wrapping does). */
  dataKeys: Map<string, Buffer>;
}

export function masterKeyId(masterKey: Buffer): string {
  return sha256Hex(masterKey.toString('hex')).slice(0, 8);
}

function deriveMasterKey(masterKey: Buffer): MasterKey {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  return {
    keyId: masterKeyId(masterKey),
    wrappingKey: derive('deletion-service/key-wrap/v1'),
    legacySecretsKey: derive('deletion-service/secrets/v1'),
  };
}

export function createKeyring(masterKey: Buffer, previousMasterKeys: Buffer[] = []): Keyring {
  const current = deriveMasterKey(masterKey);
  const previous = previousMasterKeys
    .map(deriveMasterKey)
    .filter((k, i, all) => k.keyId !== current.keyId && all.findIndex((o) => o.keyId === k.keyId) === i);
  return {
    keyId: current.keyId,
    encryptionKey: current.legacySecretsKey,
    identifierPepper: Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'deletion-service/identifier-hmac/v1', 32),
    ),
    masterKeys: [current, ...previous],
    dataKeys: new Map(),
  };
}

/** AES-256-GCM with associated data, as "iv:tag:ciphertext" in base64url. */
export function aeadSeal(key: Buffer, plaintext: Buffer, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
}

/** Opens aeadSeal's output; throws when the key or the associated data is wrong or the text was altered. */
export function aeadOpen(key: Buffer, sealed: string, associatedData: string): Buffer {
  const [iv, tag, body] = sealed.split(':');
  if (!iv || !tag || body === undefined) throw new Error('malformed ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
}

/**
 * The first secret format (v1): AES-256-GCM under a key derived from the master key.
 * New secrets go through secret-store.ts (per-organization data keys); this stays to read
 * and migrate old ciphertexts. `context` is bound as associated data (e.g. "account:acc_123"), so a
 * ciphertext copied to another record does not decrypt.
 */
export function encryptSecret(keyring: Keyring, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.encryptionKey, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    keyring.keyId,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join(':');
}

export function decryptSecret(keyring: Keyring, sealed: string, context: string): string {
  const [version, keyId, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined)
    throw new AppError('INTERNAL_SERVER_ERROR', 'Stored secret has an unknown format');
  const master = keyring.masterKeys.find((k) => k.keyId === keyId);
  if (!master) {
    throw new AppError(
      'INTERNAL_SERVER_ERROR',
      `Stored secret was encrypted with master key ${keyId}, but the configured ENCRYPTION_KEY is ${keyring.keyId}`,
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', master.legacySecretsKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** A stored hash (its 32 bytes in a bytea column) as the hex text the service computes and compares. */
export const hashHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Hashes as a statement's bytea[] parameter. */
export const hashBytes = (hexes: readonly string[]) => hexes.map((hex) => Buffer.from(hex, 'hex'));

/** HMAC-SHA256 of an identifier with the secret pepper, as hex: searchable, not brute-forceable. */
export function identifierHmac(keyring: Keyring, identifier: string): string {
  return createHmac('sha256', keyring.identifierPepper).update(identifier).digest('hex');
}
