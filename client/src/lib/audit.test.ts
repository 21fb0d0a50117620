import { describe, expect, it } from 'vitest';
import { actionLabel, actorLabel, detailsBlockText, isIsoInstant, splitDetails } from './audit';

describe('audit entry presentation', () => {
  it('labels known and unknown actions', () => {
    expect(actionLabel('pat.revoked')).toBe('Access token revoked');
    expect(actionLabel('integration_request.check_status')).toBe('Integration request check status');
  });

  it('names who acted and through what', () => {
    expect(actorLabel({ actorType: 'user:pat', actorId: 'u', actorName: 'Jane' })).toBe('Jane (API token)');
    expect(actorLabel({ actorType: 'system', actorId: null, actorName: null })).toBe('System');
  });

  it('keeps short values inline and HTTP exchanges as expandable blocks', () => {
    const { facts, blocks } = splitDetails({
      workspaceId: 'ws_1',
      request: { method: 'POST', url: 'https://x' },
      sql: 'DELETE FROM users\nWHERE id = $1',
    });
    expect(facts).toEqual([['workspaceId', 'ws_1']]);
    expect(blocks.map(([key]) => key)).toEqual(['request', 'sql']);
  });

  it('knows a recorded instant from other text', () => {
    expect(isIsoInstant('2026-11-27T23:30:00.000Z')).toBe(true);
    expect(isIsoInstant('2026-11-28T08:30:00+09:00')).toBe(true);
    expect(isIsoInstant('2026-11-28')).toBe(false);
    expect(isIsoInstant('2026-13-45T99:00:00Z')).toBe(false);
    expect(isIsoInstant('due 2026-11-27T23:30:00Z')).toBe(false);
  });

  it('writes the instants of a details block as the page shows times, and recorded exchanges as they were', () => {
    const tokyo = (iso: string) =>
      new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Tokyo' }).format(
        new Date(iso),
      );
    const before = { confirmedAt: '2026-11-27T23:30:00.000Z', note: 'by email' };
    const text = detailsBlockText('before', before, tokyo);
    expect(text).toContain('"confirmedAt": "28 Nov 2026, 08:30"');
    expect(text).not.toContain('2026-11-27T23:30');
    expect(text).toContain('"note": "by email"');
    const exchanges = [{ request: { body: { requestedAt: '2026-11-27T23:30:00.000Z' } } }];
    expect(detailsBlockText('exchanges', exchanges, tokyo)).toContain('"requestedAt": "2026-11-27T23:30:00.000Z"');
  });
});
