import { PDFArray, PDFDocument, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfTime, renderCertificatePdf } from './render-pdf';
import type { SignedCertificate } from './verify-certificate';

/** The text drawn on a PDF's pages, one drawn line a line (pdf-lib writes each as a hex string). */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await PDFDocument.load(bytes);
  const lines: string[] = [];
  for (const page of pdf.getPages()) {
    const contents = page.node.Contents();
    const streams =
      contents instanceof PDFArray ? contents.asArray().map((ref) => pdf.context.lookup(ref)) : [contents];
    for (const stream of streams) {
      const operators = Buffer.from(decodePDFRawStream(stream as PDFRawStream).decode()).toString('latin1');
      for (const [, hex] of operators.matchAll(/<([0-9A-Fa-f]*)> Tj/g))
        lines.push(Buffer.from(hex!, 'hex').toString('latin1'));
    }
  }
  return lines.join('\n');
}

const certificate = {
  type: 'deletion-report',
  issuedAt: '2026-11-27T23:45:10.000Z',
  issuer: { organizationId: 'org_1', organizationName: 'Zone Corp' },
  deletionRequest: {
    id: 'dr_zone',
    status: 'FAILED',
    workspace: { name: 'Shop' },
    // Late on 27 November in UTC: the morning of 28 November in Tokyo.
    receivedAt: '2026-11-27T23:30:00.000Z',
    completedAt: '2026-11-27T23:31:05.000Z',
    regulation: 'GDPR',
    dueAt: '2026-12-28T14:59:59.999Z',
    subject: { identifierHash: { algorithm: 'HMAC-SHA256', value: 'ab'.repeat(32) } },
  },
  destinations: [],
  auditChain: { head: null },
};
const signed = {
  certificate,
  signature: { keyId: 'key_1', publicKey: 'cHVibGlj', value: 'c2lnbmF0dXJl' },
} as unknown as SignedCertificate;

describe('the times of the certificate PDF', () => {
  it("are shown in the viewer's zone, which the PDF names, never as raw ISO timestamps", async () => {
    const text = await pdfText(await renderCertificatePdf(signed, 'Asia/Tokyo'));
    expect(text).toContain('Times are in the time zone Asia/Tokyo');
    expect(text).toContain('Issued 2026-11-28 08:45:10 UTC+9 by Zone Corp');
    expect(text).toContain('Received: 2026-11-28 08:30:00 UTC+9    Completed: 2026-11-28 08:31:05 UTC+9');
    expect(text).toContain('Due: 2026-12-28 23:59:59 UTC+9');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('are in UTC, named so, when no zone is given', async () => {
    const text = await pdfText(await renderCertificatePdf(signed));
    expect(text).toContain('Times are in the time zone UTC');
    expect(text).toContain('Received: 2026-11-27 23:30:00 UTC ');
  });

  it("carry the zone's offset at each instant (summer and winter time differ)", () => {
    expect(pdfTime('2026-07-01T12:00:00Z', 'Europe/Berlin')).toBe('2026-07-01 14:00:00 UTC+2');
    expect(pdfTime('2026-12-01T12:00:00Z', 'Europe/Berlin')).toBe('2026-12-01 13:00:00 UTC+1');
    expect(pdfTime('2026-12-01T12:00:00Z', 'Asia/Kolkata')).toBe('2026-12-01 17:30:00 UTC+5:30');
    expect(pdfTime(null, 'UTC')).toBe('-');
  });
});
