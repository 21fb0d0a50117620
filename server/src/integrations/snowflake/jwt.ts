import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { PermanentError } from '../types';

/** How long a key-pair JWT is valid: Snowflake accepts at most one hour after `iat`. */
const JWT_LIFETIME_SECONDS = 59 * 60;

/**
 * The private key from its PEM text, also when a form flattened it onto one line (an input
 * field drops the line breaks): the base64 between the armour lines is wrapped again.
 */
export function privateKeyOf(pem: string): KeyObject {
  const armoured = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!armoured) throw new PermanentError('The Snowflake private key must be a PEM (-----BEGIN PRIVATE KEY-----)');
  if (armoured[1]!.includes('ENCRYPTED'))
    throw new PermanentError('The Snowflake private key is encrypted; store it without a passphrase');
  const body = armoured[2]!.replace(/\s+/g, '');
  const wrapped = `-----BEGIN ${armoured[1]}-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${armoured[1]}-----\n`;
  try {
    return createPrivateKey(wrapped);
  } catch {
    throw new PermanentError('The Snowflake private key could not be read as an RSA key in PEM');
  }
}

/** `SHA256:` and the base64 SHA-256 of the public key's DER (SubjectPublicKeyInfo): Snowflake's RSA_PUBLIC_KEY_FP. */
export function publicKeyFingerprint(key: KeyObject): string {
  const der = createPublicKey(key).export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64')}`;
}

/**
 * The account part of the JWT's names: upper case, and for an account locator with its region
 * (xy12345.us-east-1) the locator alone.
 */
const accountForJwt = (account: string) => account.split('.')[0]!.toUpperCase();

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/**
 * A key-pair JWT for Snowflake's SQL API: RS256, `iss` = ACCOUNT.USER.SHA256:fingerprint,
 * `sub` = ACCOUNT.USER, issued now and expiring within the hour.
 */
export function keypairJwt(secrets: { account: string; user: string; privateKey: string }, now = Date.now()): string {
  const key = privateKeyOf(secrets.privateKey);
  const qualifiedUser = `${accountForJwt(secrets.account)}.${secrets.user.toUpperCase()}`;
  const iat = Math.floor(now / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64url(
    JSON.stringify({
      iss: `${qualifiedUser}.${publicKeyFingerprint(key)}`,
      sub: qualifiedUser,
      iat,
      exp: iat + JWT_LIFETIME_SECONDS,
    }),
  );
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${base64url(signature)}`;
}
