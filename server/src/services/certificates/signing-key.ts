import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Db } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { openSecret, sealSecret } from '../keys/secret-store';

const context = (keyId: string) => `signing-key:${keyId}`;

export interface SigningKey {
  id: string;
  /** SPKI DER, base64. */
  publicKey: string;
  privateKey: KeyObject;
}

/**
 * The organization's Ed25519 certificate-signing key, generated on first use. The private key
 * (PKCS#8) is sealed with the organization's data key like every other secret; the public key
 * is published so anyone can verify certificates offline.
 */
export async function signingKeyFor(db: Db, keyring: Keyring, organizationId: string): Promise<SigningKey> {
  const existing = await db.organizationSigningKey.findFirst({
    where: { organizationId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (existing) {
    const pkcs8 = await openSecret(
      { prisma: db, keyring },
      organizationId,
      existing.privateKeyCipher,
      context(existing.id),
    );
    return {
      id: existing.id,
      publicKey: existing.publicKey,
      privateKey: createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' }),
    };
  }
  return db.$transaction(async (tx) => {
    // One key per organization even when two first certificates are made at once.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`signing-key:${organizationId}`}))`;
    const raced = await tx.organizationSigningKey.findFirst({ where: { organizationId }, select: { id: true } });
    if (raced) return signingKeyFor(db, keyring, organizationId);
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const id = newId('sigkey');
    const publicDer = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const sealed = await sealSecret(
      { prisma: tx, keyring },
      organizationId,
      privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      context(id),
    );
    await tx.organizationSigningKey.create({
      data: { id, organizationId, publicKey: publicDer, privateKeyCipher: sealed },
    });
    return { id, publicKey: publicDer, privateKey };
  });
}

/** The public key as PEM, for download. */
export function publicKeyPem(publicKeyDer: string): string {
  return createPublicKey({ key: Buffer.from(publicKeyDer, 'base64'), format: 'der', type: 'spki' })
    .export({ format: 'pem', type: 'spki' })
    .toString();
}
