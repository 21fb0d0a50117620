import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DueDate } from './due-date';

const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();
const render = (props: Parameters<typeof DueDate>[0]) => renderToStaticMarkup(<DueDate {...props} />);

describe('DueDate', () => {
  it('adds the business days left to confirm a receipt while it is still to confirm', () => {
    const base = { dueAt: inDays(40), status: 'PENDING', regulation: 'CCPA' };
    const pending = render({ ...base, receipt: { confirmBy: inDays(30), confirmedAt: null } });
    expect(pending).toMatch(/receipt: \d+ business days left/);
    expect(pending).toContain('data-receipt-tone="ok"');
    const late = render({ ...base, receipt: { confirmBy: inDays(-14), confirmedAt: null } });
    expect(late).toMatch(/receipt \d+ business days late/);
    expect(late).toContain('data-receipt-tone="overdue"');
    // Confirmed, canceled, or a request with no receipt to confirm: the deletion deadline alone.
    for (const html of [
      render({ ...base, receipt: { confirmBy: inDays(-14), confirmedAt: inDays(-20) } }),
      render({ ...base, status: 'CANCELED', receipt: { confirmBy: inDays(-14), confirmedAt: null } }),
      render({ ...base, regulation: 'GDPR', receipt: { confirmBy: null, confirmedAt: null } }),
      render(base),
    ]) {
      expect(html).not.toContain('receipt');
      expect(html).toContain('due-date');
    }
  });
});
