import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SegmentedStatusBar, StatusBadge } from './status';

describe('SegmentedStatusBar', () => {
  it('draws one segment per status with its share and speaks the summary', () => {
    const html = renderToStaticMarkup(<SegmentedStatusBar statuses={['SUCCESS', 'SUCCESS', 'FAILED', 'PENDING']} />);
    expect(html).toContain('aria-label="3 of 4 finished: 2 succeeded, 1 failed; 1 still running"');
    expect(html).toContain('width:50%;background:var(--status-success)');
    expect(html.match(/class="segment"/g)).toHaveLength(3);
  });

  it('shows an empty track when the request had no integrations', () => {
    expect(renderToStaticMarkup(<SegmentedStatusBar statuses={[]} />)).toContain('segment-empty');
  });
});

describe('StatusBadge', () => {
  it('explains the status on hover', () => {
    expect(renderToStaticMarkup(<StatusBadge status="FAILED" />)).toContain(
      'title="Sending or executing failed; it can be retried"',
    );
  });
});
