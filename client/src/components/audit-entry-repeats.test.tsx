import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AuditEntryBody, type AuditEntryView } from './audit-entry';
import { actionLabel } from '../lib/audit';

const poll: AuditEntryView = {
  id: '42',
  action: 'deletion.status_checked',
  summary: "Status 'queued'",
  outcome: 'PROCESSING',
  actorType: 'system',
  actorId: null,
  actorName: null,
  createdAt: '2026-11-20T09:00:00.000Z',
  details: null,
  repeatCount: 1,
  lastRepeatedAt: null,
};

describe('folded status checks in the audit trail', () => {
  it('shows how many identical checks an entry stands for, with the first and the last time', () => {
    const html = renderToStaticMarkup(
      <AuditEntryBody entry={{ ...poll, repeatCount: 14, lastRepeatedAt: '2026-11-20T09:17:00.000Z' }} />,
    );
    expect(html).toContain('data-repeat-count="14"');
    expect(html).toMatch(/Status &#x27;queued&#x27;<span[^>]*> ×14, first [^<]+, last [^<]+<\/span>/);
  });

  it('adds nothing to an entry that stands for itself alone', () => {
    expect(renderToStaticMarkup(<AuditEntryBody entry={poll} />)).not.toContain('×');
  });

  it('names how an integration request ended instead of "completed" with a FAILED badge', () => {
    expect(actionLabel('deletion.completed', 'FAILED')).toBe('Deletion failed');
    expect(actionLabel('deletion.completed', 'SUCCESS')).toBe('Deletion completed');
    expect(actionLabel('deletion.status_checked', 'PROCESSING')).toBe('Deletion status checked');
    // The step that ended it is its one entry: named by the end, not "Deletion requested" with a SUCCESS badge.
    expect(actionLabel('deletion.requested', 'SUCCESS')).toBe('Deletion completed');
    expect(actionLabel('deletion.status_checked', 'ERROR')).toBe('Deletion stopped by an internal error');
    expect(actionLabel('deletion.requested', 'PENDING')).toBe('Deletion requested');
  });
});
