import { createHash } from 'node:crypto';
import { EVIDENCE_MAX_BYTES, EVIDENCE_TYPES_TEXT } from '@shared/schemas/manual-tasks';
import type { DbOrTx } from '../../db/client';
import type { Keyring } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { sealSecret } from '../keys/secret-store';

export interface EvidenceFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
  sha256: string;
}

const TOO_LARGE = `The evidence file is larger than ${EVIDENCE_MAX_BYTES / 1024 / 1024} MB`;

/** The type the first bytes say, never the name: a PDF, PNG or JPEG signature, or text (CSV/TXT by its name). */
function sniff(bytes: Buffer, fileName: string): string | null {
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const text = /\.(csv|txt)$/i.exec(fileName);
  if (text && bytes.length > 0 && !bytes.includes(0) && isUtf8(bytes))
    return text[1]!.toLowerCase() === 'csv' ? 'text/csv' : 'text/plain';
  return null;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Decodes and checks an uploaded evidence file: over 10 MB is a 413, another type a 415, both with a message. */
export function readEvidence(input: { fileName: string; contentBase64: string }): EvidenceFile {
  const base64 = input.contentBase64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(base64))
    throw new AppError('BAD_REQUEST', 'The evidence file must be base64-encoded');
  // Refused before decoding: the encoded length says the size.
  if (
    Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0) >
    EVIDENCE_MAX_BYTES
  )
    throw new AppError('PAYLOAD_TOO_LARGE', TOO_LARGE);
  const bytes = Buffer.from(base64, base64.includes('-') || base64.includes('_') ? 'base64url' : 'base64');
  if (bytes.length > EVIDENCE_MAX_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', TOO_LARGE);
  const contentType = sniff(bytes, input.fileName);
  if (!contentType)
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The evidence file must be a ${EVIDENCE_TYPES_TEXT} file (its content, not only its name)`,
    );
  return { fileName: input.fileName, contentType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const evidenceContext = (taskId: string) => `manual-task-evidence:${taskId}`;

/** Stores the file sealed with the organization's data key, bound to its task (in the caller's transaction). */
export async function storeEvidence(
  tx: DbOrTx,
  keyring: Keyring,
  organizationId: string,
  taskId: string,
  file: EvidenceFile,
): Promise<void> {
  const contentCipher = await sealSecret(
    { prisma: tx, keyring },
    organizationId,
    file.bytes.toString('base64'),
    evidenceContext(taskId),
  );
  await tx.manualTaskEvidence.create({
    data: {
      taskId,
      organizationId,
      fileName: file.fileName,
      contentType: file.contentType,
      sizeBytes: file.bytes.length,
      sha256: file.sha256,
      contentCipher,
    },
  });
}
