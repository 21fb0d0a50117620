import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { SignedCertificate } from './verify-certificate';

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

interface Cursor {
  page: PDFPage;
  y: number;
}

/** Characters outside WinAnsi (what the standard fonts can draw) become "?". */
const printable = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

/**
 * An instant as "2026-11-28 08:30:00 UTC+9": its wall-clock time in `timeZone`, with that
 * zone's offset at the instant, so each time stands on its own.
 */
export function pdfTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '-';
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'shortOffset',
    })
      .formatToParts(new Date(iso))
      .map((part) => [part.type, part.value]),
  );
  const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT(\+0)?$/, 'GMT').replace(/^GMT/, 'UTC');
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${offset}`;
}

/**
 * The human-readable certificate, rendered from the signed JSON document (which is embedded
 * in the PDF as an attachment, so the PDF carries its own proof). The JSON is what
 * `certificate:verify` checks; the PDF shows the same facts, its times in `timeZone` (an IANA
 * zone: the viewer's, as the dashboard shows them), which it names.
 */
export async function renderCertificatePdf(signed: SignedCertificate, timeZone = 'UTC'): Promise<Uint8Array> {
  const at = (iso: string | null | undefined) => pdfTime(iso, timeZone);
  const pdf = await PDFDocument.create();
  const c = signed.certificate as any;
  const isCertificate = c.type === 'certificate-of-deletion';
  pdf.setTitle(`${isCertificate ? 'Certificate of deletion' : 'Deletion report'} ${c.deletionRequest.id}`);
  pdf.setCreator('Data Deletion Request Service');
  pdf.setCreationDate(new Date(c.issuedAt));
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const mono = await pdf.embedFont(StandardFonts.Courier);
  const cursor: Cursor = { page: pdf.addPage(A4), y: A4[1] - MARGIN };

  const line = (text: string, font: PDFFont = regular, size = 10, indent = 0) => {
    const width = A4[0] - 2 * MARGIN - indent;
    // Wrap on width; long tokens (hashes) are cut.
    const words = printable(text).split(' ');
    let current = '';
    const lines: string[] = [];
    for (const word of words) {
      const candidate = current ? `${current} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= width) current = candidate;
      else {
        if (current) lines.push(current);
        let rest = word;
        while (font.widthOfTextAtSize(rest, size) > width) {
          let n = rest.length;
          while (n > 1 && font.widthOfTextAtSize(rest.slice(0, n), size) > width) n--;
          lines.push(rest.slice(0, n));
          rest = rest.slice(n);
        }
        current = rest;
      }
    }
    if (current) lines.push(current);
    for (const l of lines) {
      if (cursor.y < MARGIN + size) {
        cursor.page = pdf.addPage(A4);
        cursor.y = A4[1] - MARGIN;
      }
      cursor.page.drawText(l, { x: MARGIN + indent, y: cursor.y - size, size, font, color: rgb(0.1, 0.1, 0.12) });
      cursor.y -= size + 4;
    }
  };
  const gap = (n = 8) => void (cursor.y -= n);

  line(
    isCertificate
      ? 'Certificate of deletion'
      : c.dataReappeared
        ? 'Deletion report (re-verification found data again)'
        : c.deletionRequest.closed
          ? 'Deletion report (closed, not fulfilled)'
          : 'Deletion report (not every destination succeeded)',
    bold,
    20,
  );
  gap();
  line(`Issued ${at(c.issuedAt)} by ${c.issuer.organizationName} (${c.issuer.organizationId})`);
  line(`Times are in the time zone ${timeZone}; the attached certificate.json gives them in UTC.`, regular, 9);
  gap(12);
  line('Request', bold, 13);
  const r = c.deletionRequest;
  line(`Id: ${r.id}    Status: ${r.status}    Workspace: ${r.workspace.name}`);
  line(`Received: ${at(r.receivedAt)}    Completed: ${at(r.completedAt)}`);
  // The standard fonts have no em dash of their own here: a plain one reads the same.
  if (r.closed)
    line(`${r.closed.outcome.replace(/\u2014/g, '-')}${r.closed.reasonText ? `: ${r.closed.reasonText}` : ''}`, bold);
  line(
    `Regulation: ${r.regulation ?? '-'}    Due: ${at(r.dueAt)}${r.dueExtendedAt ? ` (extended ${at(r.dueExtendedAt)})` : ''}`,
  );
  if (r.receiptConfirmBy || r.receiptConfirmedAt)
    line(
      `Receipt confirmed to the subject: ${r.receiptConfirmedAt ? at(r.receiptConfirmedAt) : 'not recorded'}${r.receiptConfirmBy ? `    Due by: ${at(r.receiptConfirmBy)}` : ''}`,
    );
  if (r.subject.identifierHash) {
    line(`Subject (keyed hash, ${r.subject.identifierHash.algorithm}):`);
    line(r.subject.identifierHash.value, mono, 9, 12);
  } else {
    line(`Subject: identifier and its hash deleted by the retention policy on ${at(r.subject.identifierRemoved.at)}`);
  }
  gap(12);
  line('Destinations', bold, 13);
  for (const d of c.destinations) {
    gap(4);
    line(`${d.name} (${d.type}): ${d.finalStatus}`, bold, 11);
    line(
      `Requested ${at(d.requestedAt)}; completed ${at(d.completedAt)}; attempts ${d.attempts}${d.vendorTaskId ? `; vendor task id ${d.vendorTaskId}` : ''}`,
      regular,
      9,
      12,
    );
    if (d.reverifiedAt)
      line(
        `Re-verified ${at(d.reverifiedAt)}${d.reappearedAt ? `; data REAPPEARED ${at(d.reappearedAt)}` : '; nothing reappeared'}`,
        regular,
        9,
        12,
      );
    const e = d.evidence;
    if (!e.recorded) line('No evidence recorded for this destination.', regular, 9, 12);
    else if (e.verification) {
      line(`Rows changed: ${JSON.stringify(e.rowsChanged)}`, mono, 8, 12);
      line(
        `Verification ${e.verification.passed ? 'passed' : 'FAILED'}: rows still matching ${JSON.stringify(e.verification.remainingMatchingRows)}`,
        mono,
        8,
        12,
      );
      if (e.recoverability) line(`Still recoverable: ${e.recoverability}`, regular, 9, 12);
    } else if (d.type === 'MANUAL') {
      // A person's word, not a check the service made: the certificate never calls it verified.
      const answer = e.vendor as { answer?: string; answeredAt?: string; note?: string };
      line(`Confirmed by a person: ${answer.answer ?? '-'} at ${answer.answeredAt ?? '-'}`, regular, 9, 12);
      if (answer.note) line(`Their note: ${answer.note}`, regular, 9, 12);
    } else line(`Vendor evidence: ${JSON.stringify(e.vendor)}`, mono, 8, 12);
  }
  gap(12);
  line('Audit chain', bold, 13);
  const head = c.auditChain.head;
  line(head ? `Head #${head.chainSeq} sealed ${at(head.sealedAt)}:` : 'Not sealed yet.');
  if (head) line(head.hash, mono, 9, 12);
  gap(12);
  line('Signature', bold, 13);
  line(`Ed25519, key ${signed.signature.keyId}. The signed JSON document is attached to this PDF (certificate.json);`);
  line('verify it offline with: npm run cli -- certificate:verify certificate.json --public-key public-key.pem');
  line("(public-key.pem: the organization's published key, /api/downloads/certificate-public-key.pem)");
  line(`Public key (SPKI, base64): ${signed.signature.publicKey}`, mono, 8);
  line(`Signature: ${signed.signature.value}`, mono, 8);

  await pdf.attach(Buffer.from(JSON.stringify(signed, null, 2), 'utf8'), 'certificate.json', {
    mimeType: 'application/json',
    description: 'The signed certificate of deletion',
    creationDate: new Date(c.issuedAt),
    modificationDate: new Date(c.issuedAt),
  });
  return pdf.save();
}
