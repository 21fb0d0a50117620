import { createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from './canonical-json';

export interface SignedCertificate {
  certificate: Record<string, unknown>;
  signature: { algorithm: 'Ed25519'; keyId: string; publicKey: string; value: string };
}

/**
 * `keyChecked`: the key that signed is the organization's published one (`trustedPublicKey`
 * was given and matched). Without it, a valid signature only shows the document is unchanged
 * since someone signed it with the key it carries: anyone can make a key and sign a document
 * naming any organization.
 */
export type VerificationResult =
  { valid: true; keyChecked: boolean; keyId: string; deletionRequestId: string } | { valid: false; reason: string };

/**
 * Verifies a certificate of deletion offline: the Ed25519 signature over the canonical JSON
 * of `certificate`, with the public key it names, and (when given) that this key is the
 * organization's published one. Needs no database and no network.
 */
export function verifyCertificate(document: unknown, trustedPublicKey?: string): VerificationResult {
  const doc = document as Partial<SignedCertificate> | null;
  if (!doc || typeof doc !== 'object' || !doc.certificate || typeof doc.certificate !== 'object' || !doc.signature) {
    return { valid: false, reason: 'not a certificate of deletion (no "certificate" and "signature")' };
  }
  const { signature } = doc;
  if (
    signature.algorithm !== 'Ed25519' ||
    typeof signature.publicKey !== 'string' ||
    typeof signature.value !== 'string'
  ) {
    return { valid: false, reason: 'unsupported or malformed signature' };
  }
  if (trustedPublicKey !== undefined && normaliseKey(trustedPublicKey) !== normaliseKey(signature.publicKey)) {
    return { valid: false, reason: "signed with a key other than the organization's published public key" };
  }
  let ok = false;
  try {
    const key = createPublicKey({ key: Buffer.from(signature.publicKey, 'base64'), format: 'der', type: 'spki' });
    ok = verify(null, Buffer.from(canonicalJson(doc.certificate), 'utf8'), key, Buffer.from(signature.value, 'base64'));
  } catch {
    return { valid: false, reason: 'the public key or the signature is malformed' };
  }
  if (!ok)
    return { valid: false, reason: 'the signature does not match: the certificate was changed after it was signed' };
  const request = (doc.certificate as { deletionRequest?: { id?: unknown } }).deletionRequest;
  return {
    valid: true,
    keyChecked: trustedPublicKey !== undefined,
    keyId: signature.keyId,
    deletionRequestId: String(request?.id ?? ''),
  };
}

/** A public key as base64 SPKI DER, whether given as that or as PEM. */
function normaliseKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed.startsWith('-----BEGIN'))
    return createPublicKey(trimmed).export({ format: 'der', type: 'spki' }).toString('base64');
  return trimmed;
}
