import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AuditChainStatusLine, type AuditChainStatus } from './audit-chain-status';

const verified: AuditChainStatus = {
  ok: true,
  verifiedEntries: 12,
  unsealedEntries: 3,
  droppedEntries: 0,
  firstBreak: null,
  checkedAt: '2026-11-25T10:00:00.000Z',
};
const render = (status: AuditChainStatus, verifying = false) =>
  renderToStaticMarkup(<AuditChainStatusLine status={status} verifying={verifying} onVerify={() => {}} />);

describe('AuditChainStatusLine', () => {
  it('says how many entries are sealed and how many await sealing when the chain verifies', () => {
    const html = render(verified);
    expect(html).toContain('role="status"');
    expect(html).toContain('Audit chain verified: 12 entries sealed, 3 awaiting sealing.');
    expect(html).toContain('>Verify again</button>');
    expect(render({ ...verified, verifiedEntries: 1 })).toContain('1 entry sealed');
    expect(html).not.toContain('dropped');
  });

  it('says how many older entries the audit log retention dropped', () => {
    expect(render({ ...verified, droppedEntries: 40 })).toContain(
      '40 entries older than the audit log retention dropped; the chain is verified from where they ended.',
    );
  });

  it('warns with the first broken entry and the reason when it does not verify', () => {
    const html = render({
      ...verified,
      ok: false,
      verifiedEntries: 6,
      firstBreak: { entryId: '4711', chainSeq: '7', reason: "hash does not match the entry's content (entry altered)" },
    });
    expect(html).toContain('role="alert"');
    expect(html).toContain('Audit chain broken at entry 4711');
    expect(html).toContain('(chain position 7): hash does not match the entry&#x27;s content (entry altered).');
    expect(html).toContain('6 entries before it verified');
    expect(html).not.toContain('Audit chain verified');
  });

  it('disables the button while a verification runs', () => {
    expect(render(verified, true)).toMatch(/<button[^>]*disabled[^>]*>Verifying…<\/button>/);
  });
});
