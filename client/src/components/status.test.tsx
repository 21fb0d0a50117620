import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SegmentedStatusBar, StatusBadge } from './status';

describe('SegmentedStatusBar', () => {
  it('draws one segment per status with its share and speaks the summary', () => {
    const html = renderToStaticMarkup(<SegmentedStatusBar statuses={['SUCCESS', 'SUCCESS', 'FAILED', 'PENDING']} />);
    expect(html).toContain('aria-label="3 of 4 finished: 2 succeeded, 1 failed; 1 still running"');
    expect(html).toContain('<rect x="0" y="0" width="50" height="10" class="segment segment-success">');
    expect(html).toContain('<rect x="50" y="0" width="25" height="10" class="segment segment-failed">');
    expect(html.match(/<rect /g)).toHaveLength(3);
    // Sizes and colours are attributes and classes: no inline style, which the page's CSP would block.
    expect(html).not.toContain('style=');
  });

  it('shows an empty track when the request had no integrations', () => {
    expect(renderToStaticMarkup(<SegmentedStatusBar statuses={[]} />)).toContain('segmented-empty');
  });
});

describe('StatusBadge', () => {
  it('explains the status on hover', () => {
    expect(renderToStaticMarkup(<StatusBadge status="FAILED" />)).toContain(
      'title="Sending or executing failed; it can be retried"',
    );
  });
});
