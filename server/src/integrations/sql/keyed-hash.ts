import { PermanentError } from '../types';

/** SHA-256's block size: HMAC pads its key to it. */
const BLOCK_BYTES = 64;

/**
 * The key's inner and outer padded forms (RFC 2104, section 2), in hex: with them SQL computes
 * HMAC-SHA256 from the SHA-256 both dialects have, and the key itself never reaches the database.
 */
export function hmacPads(key: Buffer | null): { inner: string; outer: string } {
  // Never an unkeyed hash instead: a plain SHA-256 of an email is reversed with a list of emails.
  if (!key)
    throw new PermanentError(
      'This integration has no hash key (it was deleted, and its key with it), so its hash rules cannot run',
    );
  if (key.length > BLOCK_BYTES) throw new PermanentError('The hash key is longer than a SHA-256 block');
  const padded = Buffer.concat([key, Buffer.alloc(BLOCK_BYTES - key.length)]);
  const xor = (byte: number) => Buffer.from(padded.map((b) => b ^ byte)).toString('hex');
  return { inner: xor(0x36), outer: xor(0x5c) };
}
