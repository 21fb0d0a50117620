import { randomBytes } from 'node:crypto';
import { sha256Hex } from './crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const TOKEN_PREFIX = {
  personalAccessToken: 'dds_pat_',
  workspaceApiKey: 'dds_wsk_',
  invitation: 'dds_inv_',
  manualTask: 'dds_task_',
} as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

function toBase62(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) out += BASE62[b % 62];
  return out;
}

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * A secret token: type prefix + 32 random base62 characters + a 6-character CRC32
 * checksum, so secret scanners can recognise a leaked token without a database.
 */
export function generateToken(kind: TokenKind): { token: string; hash: string; displayPrefix: string } {
  const body = TOKEN_PREFIX[kind] + toBase62(randomBytes(32));
  const token = body + checksum(body);
  return { token, hash: sha256Hex(token), displayPrefix: token.slice(0, TOKEN_PREFIX[kind].length + 6) };
}

/** Checks prefix and checksum: malformed tokens are rejected without a database lookup. */
export function isWellFormedToken(kind: TokenKind, token: string): boolean {
  const prefix = TOKEN_PREFIX[kind];
  if (token.length !== prefix.length + 38 || !token.startsWith(prefix)) return false;
  return checksum(token.slice(0, -6)) === token.slice(-6);
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Opaque random value for cookies and one-time links. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
