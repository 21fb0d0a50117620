import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Keys derived from the master key, each for one purpose. */
export interface Keyring {
  /** Short fingerprint of the master key, stored beside each ciphertext. */
  keyId: string;
  encryptionKey: Buffer;
  identifierPepper: Buffer;
}

export function createKeyring(masterKey: Buffer): Keyring {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  return {
    keyId: sha256Hex(masterKey.toString('hex')).slice(0, 8),
    encryptionKey: derive('deletion-service/secrets/v1'),
    identifierPepper: derive('deletion-service/identifier-hmac/v1'),
  };
}

/**
 * AES-256-GCM. `context` is bound as associated data (e.g. "account:acc_123"), so a
 * ciphertext copied to another record does not decrypt.
 */
export function encryptSecret(keyring: Keyring, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.encryptionKey, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', keyring.keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
}

export function decryptSecret(keyring: Keyring, sealed: string, context: string): string {
  const [version, keyId, iv, tag, body] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new AppError('INTERNAL_SERVER_ERROR', 'Stored secret has an unknown format');
  if (keyId !== keyring.keyId) {
    throw new AppError('INTERNAL_SERVER_ERROR', `Stored secret was encrypted with key ${keyId}, but the configured ENCRYPTION_KEY is ${keyring.keyId}`);
  }
  const decipher = createDecipheriv('aes-256-gcm', keyring.encryptionKey, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** HMAC-SHA256 of an identifier with the secret pepper: searchable, not brute-forceable. */
export function identifierHmac(keyring: Keyring, identifier: string): string {
  return createHmac('sha256', keyring.identifierPepper).update(identifier).digest('hex');
}
